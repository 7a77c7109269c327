#!/usr/bin/env bash
# The scan behind `cgmem watch` on generated trees of N cgroups (sqrt(N) parents,
# each cgroup with the files of the real throttled cgroup read in the VM,
# numbers varied), beside its floor (pread of the same files through
# preopened descriptors) and a plain Python scan of the same files (os.walk,
# open/read/close, parse into dicts: what most scripts do). CPU time per
# cgroup: the scan's median of 5 rounds of SCANS scans a second apart (its
# clock), in three cases: every file at every scan (--full-read-every 0),
# quiet reads with nothing moving (30s), and quiet reads with 10% of the
# cgroups moving at every scan; then the exporter's collector (the scan and
# the page rendered from it) in the last two; Python's median of 5 scans.
# The exporter's heap is its state, plus the page it serves.
#   bash bench/watch_vs_python.sh [BUILD_DIR] [SIZES] [SCANS]
# SIZES is a comma-separated list (default 2000,10000,30000); BUILD_DIR is
# configured with -DCGMEM_BENCH=ON (target watch_bench). Prints a Markdown table.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/bench}
sizes=${2:-2000,10000,30000}
scans=${3:-10}
bench=$build/bench/watch_bench
[[ -x $bench ]] || { echo "watch_bench: build it: cmake -S . -B $build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCGMEM_BENCH=ON && cmake --build $build --target watch_bench" >&2; exit 3; }
work=$(mktemp -d -p /dev/shm 2>/dev/null || mktemp -d)  # tmpfs when there is one: in memory, like cgroupfs
trap 'rm -rf "$work"' EXIT
echo "uptime: $(uptime)"
echo "open-file limit: $(ulimit -n) soft, $(ulimit -Hn) hard"
cat >"$work/gen.py" <<'PY'
import os, sys, random
root, n, fixture = sys.argv[1], int(sys.argv[2]), sys.argv[3]
names = ["memory.current", "memory.high", "memory.max", "memory.events", "memory.events.local",
         "memory.stat", "memory.pressure", "io.pressure"]
texts = {name: open(os.path.join(fixture, name)).read() for name in names}
rng = random.Random(1)
def vary(text):  # other numbers, same shape and length class
    out = []
    for word in text.split(" "):
        key, eq, value = word.rpartition("=")
        if value.strip().isdigit():
            out.append(key + eq + str(rng.randrange(1 << 20)) + ("\n" if value.endswith("\n") else ""))
        else:
            out.append(word)
    return " ".join(out)
parents = max(1, int(n ** 0.5))
for i in range(n):
    d = os.path.join(root, f"p{i % parents}.slice", f"c{i}.scope")
    os.makedirs(d, exist_ok=True)
    for name in names:
        with open(os.path.join(d, name), "w") as f:
            f.write(vary(texts[name]) if name != "memory.high" else texts[name])
PY
cat >"$work/scan.py" <<'PY'
import os, sys, time
root = sys.argv[1]
def flat(text):
    return {k: int(v) for k, v in (line.split() for line in text.splitlines() if line)}
def psi(text):
    out = {}
    for line in text.splitlines():
        kind, *fields = line.split()
        out[kind] = {k: float(v) for k, v in (f.split("=") for f in fields)}
    return out
def scan():
    rows = []
    for d, subdirs, files in os.walk(root):
        if "memory.current" not in files:
            continue
        def read(name):
            with open(os.path.join(d, name)) as f:
                return f.read()
        rows.append({"current": int(read("memory.current")), "high": read("memory.high").strip(),
                     "max": read("memory.max").strip(), "events": flat(read("memory.events")),
                     "local": flat(read("memory.events.local")), "stat": flat(read("memory.stat")),
                     "memory": psi(read("memory.pressure")), "io": psi(read("io.pressure"))})
    return rows
n = len(scan())
rounds = []
for _ in range(5):
    start = time.process_time()
    scan()
    rounds.append((time.process_time() - start) / n)
rounds.sort()
print('{"cgroups": %d, "python_us_per_cgroup": %.3f}' % (n, rounds[2] * 1e6))
PY

echo
echo "| N | case | files held | scan | floor | scan / floor | Python | Python / scan | quiet reads | heap per cgroup |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for n in ${sizes//,/ }; do
  rm -rf "$work/tree"
  python3 "$work/gen.py" "$work/tree" "$n" tests/fixtures/cgroup-v2-6.12-throttled/lab-run1
  p=$(python3 "$work/scan.py" "$work/tree")
  for mode in "0 0 scan every file" "30 0 scan quiet, nothing moving" "30 10 scan quiet, 10% moving" \
              "30 0 exporter scan+render, quiet, nothing moving" "30 10 exporter scan+render, quiet, 10% moving"; do
    read -r every busy what label <<<"$mode"
    c=$("$bench" "$work/tree" "$scans" "$every" "$busy" "$what")
    python3 - "$n" "$label" "$c" "$p" <<'PY'
import json, sys
n, label, c, p = int(sys.argv[1]), sys.argv[2], json.loads(sys.argv[3]), json.loads(sys.argv[4])
py = p["python_us_per_cgroup"]
print(f"| {n:,} | {label} | {c['files_held']:,} files, {c['dirs_held']:,} dirs | {c['scan_us_per_cgroup']:.2f} us "
      f"| {c['floor_us_per_cgroup']:.2f} us (over {c['floor_cgroups']:,}) | {c['scan_over_floor']:.2f}x "
      f"| {py:.1f} us | {py / c['scan_us_per_cgroup']:.1f}x | {100 * c['quiet_share']:.0f}% "
      f"| {c['heap_bytes_per_cgroup'] - c['page_bytes_per_cgroup']:.0f} B"
      + (f" + page {c['page_bytes_per_cgroup']:.0f} B" if c['exporter'] else "") + " |")
PY
  done
done
