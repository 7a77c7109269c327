#!/usr/bin/env bash
# A scrape of N cgroups (default 10,000): `cgmem exporter` over a generated
# tree on tmpfs (100 parents, each cgroup with the ten files the scan reads,
# from the real throttled cgroup of tests/fixtures, numbers varied), scraped
# ROUNDS times (default 5) with curl. Medians of: the scrape's latency,
# bytes and series; the collector's CPU time per cycle, scan alone and page
# rendering (the exporter's own cgmem_exporter_*_cpu_seconds); the
# exporter's RSS. Beside it, Debian's prometheus-node-exporter scraped the
# same way on this host, as a reference point. Prints `uptime` first: the
# machine is shared.
#   bash bench/exporter_vs_scan.sh CGMEM [N] [ROUNDS]
set -euo pipefail
cgmem=${1:?usage: exporter_vs_scan.sh CGMEM [N] [ROUNDS]}
n=${2:-10000}
rounds=${3:-5}
here=$(cd "$(dirname "$0")/.." && pwd)
fixture=$here/tests/fixtures/cgroup-v2-6.12-throttled/lab-run1
base=/tmp
[[ $(stat -f -c %T /tmp) == tmpfs ]] || base=/dev/shm  # the tree must be on tmpfs
tmp=$(mktemp -d "$base/cgmem-exporter-bench-XXXXXX")
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  rm -rf "$tmp"
}
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
median() { sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }

echo "uptime: $(uptime)"
echo "tree: $n cgroups on $(stat -f -c %T "$tmp") ($tmp)"
python3 - "$fixture" "$tmp/root" "$n" <<'PY'
import os, sys
src, root, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
names = ["memory.current", "memory.high", "memory.max", "memory.events", "memory.events.local",
         "memory.stat", "memory.pressure", "io.pressure", "memory.swap.current", "memory.swap.max"]
files = {name: open(os.path.join(src, name)).read() for name in names}
parents = 100
for i in range(n):
    d = os.path.join(root, f"parent-{i % parents}", f"cg-{i}")
    os.makedirs(d)
    for name, text in files.items():
        if name == "memory.current":
            text = f"{30000000 + i * 4096}\n"
        with open(os.path.join(d, name), "w") as f:
            f.write(text)
PY

port=$(free_port)
"$cgmem" exporter --listen "127.0.0.1:$port" --json --root "$tmp/root" --interval 3s --hz 250 \
  --max-series 100000000 > "$tmp/exporter.json" 2> "$tmp/exporter.err" &
exporter=$!
pids+=("$exporter")
for _ in $(seq 600); do [[ -s $tmp/exporter.json ]] && break; sleep 0.1; done
[[ -s $tmp/exporter.json ]] || { cat "$tmp/exporter.err" >&2; exit 1; }
sleep 4  # a second scan: rates and states are there

: > "$tmp/cgmem.rows"
for i in $(seq "$rounds"); do
  read -r t bytes < <(curl -fsS -o "$tmp/page" -w '%{time_total} %{size_download}\n' "http://127.0.0.1:$port/metrics")
  series=$(awk '/^cgmem_exporter_series /{print $2}' "$tmp/page")
  scan=$(awk '/^cgmem_exporter_scan_cpu_seconds /{print $2}' "$tmp/page")
  render=$(awk '/^cgmem_exporter_render_cpu_seconds /{print $2}' "$tmp/page")
  cgroups=$(awk '/^cgmem_exporter_cgroups /{print $2}' "$tmp/page")
  preopened=$(awk '/^cgmem_exporter_cgroups_preopened /{print $2}' "$tmp/page")
  echo "$t $bytes $series $scan $render $cgroups $preopened" >> "$tmp/cgmem.rows"
  sleep 3.1  # the next scrape sees the next scan
done
rss_kib=$(awk '/^VmRSS:/{print $2}' "/proc/$exporter/status")

nport=$(free_port)
prometheus-node-exporter --web.listen-address="127.0.0.1:$nport" > "$tmp/node.log" 2>&1 &
pids+=("$!")
for _ in $(seq 100); do curl -fsS -o /dev/null "http://127.0.0.1:$nport/metrics" 2>/dev/null && break; sleep 0.1; done
: > "$tmp/node.rows"
for i in $(seq "$rounds"); do
  read -r t bytes < <(curl -fsS -o "$tmp/npage" -w '%{time_total} %{size_download}\n' "http://127.0.0.1:$nport/metrics")
  series=$(grep -vc '^#' "$tmp/npage")
  echo "$t $bytes $series" >> "$tmp/node.rows"
  sleep 1
done

col() { awk -v c="$2" '{print $c}' "$1" | median; }
lat=$(col "$tmp/cgmem.rows" 1); bytes=$(col "$tmp/cgmem.rows" 2); series=$(col "$tmp/cgmem.rows" 3)
scan=$(col "$tmp/cgmem.rows" 4); render=$(col "$tmp/cgmem.rows" 5)
cgroups=$(col "$tmp/cgmem.rows" 6); preopened=$(col "$tmp/cgmem.rows" 7)
nlat=$(col "$tmp/node.rows" 1); nbytes=$(col "$tmp/node.rows" 2); nseries=$(col "$tmp/node.rows" 3)
echo
echo "medians of $rounds scrapes"
printf '| %-28s | %12s | %12s | %10s | %14s | %14s | %s |\n' target "scrape (s)" "bytes" series "scan CPU (s)" "render CPU (s)" "(scan+render)/scan"
printf '| %-28s | %12.4f | %12.0f | %10.0f | %14.4f | %14.4f | %.2fx |\n' "cgmem exporter, $cgroups cgroups" \
  "$lat" "$bytes" "$series" "$scan" "$render" "$(echo "($scan + $render) / $scan" | bc -l)"
printf '| %-28s | %12.4f | %12.0f | %10.0f | %14s | %14s | %s |\n' "prometheus-node-exporter" "$nlat" "$nbytes" "$nseries" - - -
echo
echo "cgmem exporter: $preopened of $cgroups cgroups with their files kept open (ulimit -n $(ulimit -Hn)), RSS $((rss_kib / 1024)) MiB"
echo "uptime: $(uptime)"
