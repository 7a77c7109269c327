#!/usr/bin/env bash
# The scan behind `cgmem watch` on a generated tree of N cgroups (default
# 10,000: 100 parents of 100 children, each with the files of the real
# throttled cgroup read in the VM, numbers varied), beside its floor (pread
# of the same files through preopened descriptors) and a plain Python scan of
# the same files (os.walk, open/read/close, parse into dicts: what most
# scripts do). CPU time per cgroup, median of 5 rounds each.
#   bash bench/watch_vs_python.sh [BUILD_DIR] [N] [SCANS]
# BUILD_DIR is configured with -DCGMEM_BENCH=ON (target watch_bench).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/bench}
n=${2:-10000}
scans=${3:-5}
bench=$build/bench/watch_bench
[[ -x $bench ]] || { echo "watch_bench: build it: cmake -S . -B $build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCGMEM_BENCH=ON && cmake --build $build --target watch_bench" >&2; exit 3; }
work=$(mktemp -d -p /dev/shm 2>/dev/null || mktemp -d)  # tmpfs when there is one: in memory, like cgroupfs
trap 'rm -rf "$work"' EXIT

python3 - "$work/tree" "$n" tests/fixtures/cgroup-v2-6.12-throttled/lab-run1 <<'PY'
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
echo "tree: $n cgroups in $work/tree ($(df -T "$work" | awk 'NR==2{print $2}'))"

cat >"$work/scan.py" <<'PY'
import os, sys, time
root, scans = sys.argv[1], int(sys.argv[2])
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
    for _ in range(scans):
        scan()
    rounds.append((time.process_time() - start) / scans / n)
rounds.sort()
print('{"cgroups": %d, "python_us_per_cgroup": %.3f}' % (n, rounds[2] * 1e6))
PY

c=$("$bench" "$work/tree" "$scans")
p=$(python3 "$work/scan.py" "$work/tree" "$scans")
echo "cgmem scan:  $c"
echo "python scan: $p"
python3 - "$c" "$p" <<'PY'
import json, sys
c, p = json.loads(sys.argv[1]), json.loads(sys.argv[2])
print(f"scan {c['scan_us_per_cgroup']:.2f} us/cgroup, floor {c['floor_us_per_cgroup']:.2f} "
      f"({c['scan_over_floor']:.2f}x the floor), python {p['python_us_per_cgroup']:.2f} "
      f"({p['python_us_per_cgroup'] / c['scan_us_per_cgroup']:.1f}x the scan); "
      f"{c['cgroups_per_s']:.0f} cgroups/s; {c['heap_bytes_per_cgroup']:.0f} bytes of heap per cgroup; "
      f"{c['preopened']} of {c['cgroups']} cgroups with files kept open (ulimit -n {c['fd_limit']}), "
      f"floor over {c['floor_cgroups']}")
PY
