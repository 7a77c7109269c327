#!/usr/bin/env bash
# The exporter in the VM, Prometheus on this host: `cgmem vm --forward
# PORT:9262` runs tests/exporter/vm/guest.sh (a throttled cgroup, an
# OOM-killed one, `cgmem exporter` on the guest's port 9262) while
# prometheus_scrape.sh scrapes 127.0.0.1:PORT until the throttled cgroup's
# high counter rises in Prometheus and the killed cgroup's
# cgmem_oom_kills_seen_total is there. Then the guest's own outputs: the
# exporter stopped on SIGTERM with exit code 0.
#   vm_scrape.sh CGMEM OUT_DIR [STATIC_CGMEM]
set -euo pipefail
cgmem=${1:?usage: vm_scrape.sh CGMEM OUT_DIR [STATIC_CGMEM]}
out=${2:?}
static=${3:-}
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$out" "$out.console.log" "$out.vm.json"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')

# The dynamically linked cgmem and every shared library it loads, for the
# guest's exporter (guest.sh); the static cgmem runs everything else.
bundle=$out.bundle/exporter-bundle
rm -rf "$out.bundle"
mkdir -p "$bundle"
cp "$cgmem" "$bundle/cgmem"
ldd "$cgmem" | awk '/=> \//{print $3} /ld-linux/ && !/=>/{print $1}' | while read -r lib; do cp -L "$lib" "$bundle/"; done
[[ -e $bundle/ld-linux-x86-64.so.2 ]] || { echo "no ld-linux-x86-64.so.2 in ldd $cgmem" >&2; exit 1; }

vm_pid=
trap '[[ -n $vm_pid ]] && kill -INT "$vm_pid" 2>/dev/null; rm -rf "$out.bundle"; true' EXIT
"$cgmem" vm ${static:+--cgmem "$static"} --forward "$port:9262" --timeout 240 --out "$out" \
  --script "$here/vm/guest.sh" --file "$bundle" -- 30 exporter-bundle > "$out.stdout" 2> "$out.stderr" &
vm_pid=$!

ALSO='cgmem_oom_kills_seen_total{cgroup="/cgmem/killed"}' \
  bash "$here/prometheus_scrape.sh" "127.0.0.1:$port" /cgmem/throttled 200 "$vm_pid"

code=0
wait "$vm_pid" || code=$?
vm_pid=
if [[ $code -ne 0 ]]; then
  echo "cgmem vm exited $code:" >&2
  tail -n 20 "$out.stderr" >&2
  exit 1
fi
status=$(cat "$out/exporter.status" 2>/dev/null || echo missing)
[[ $status == 0 ]] || { echo "the exporter in the guest exited '$status' on SIGTERM:" >&2; cat "$out/exporter.err" >&2; exit 1; }
grep -q '^cgmem_memory_events_high_total{cgroup="/cgmem/throttled"} [1-9]' "$out/scrape.txt" ||
  { echo "the guest's own last scrape has no rising high counter for /cgmem/throttled" >&2; exit 1; }
echo "the exporter in the guest stopped on SIGTERM with exit code 0"
