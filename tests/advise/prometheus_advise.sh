#!/usr/bin/env bash
# `cgmem advise --prometheus` against a real Prometheus (Debian's package) on
# loopback, scraping `cgmem exporter` every second over a fixture tree: /app,
# whose memory.current climbs from 30 to 40 MiB a MiB every half second and
# holds there, with 4 MiB of inactive page cache, and /other beside it.
# Checked: the working set is the peak of memory.current minus inactive_file
# (36 MiB), the input is named by its cgroup label, the VPA rule has one daily
# peak; a selector that matches two series, one that matches none and one
# that is not a selector are refused. Everything started is stopped by PID.
#   prometheus_advise.sh CGMEM FIXTURES
set -euo pipefail
cgmem=${1:?usage: prometheus_advise.sh CGMEM FIXTURES}
fixtures=${2:?}
here=$(dirname "$0")
. "$here/../support/prometheus.sh"
tmp=$(mktemp -d)
writer_pid= PROM_PID=
cleanup() {
  for pid in $writer_pid ${EXPORTER_PID:-} $PROM_PID; do { kill "$pid" && wait "$pid"; } 2>/dev/null || true; done
  rm -rf "$tmp"
}
trap cleanup EXIT
fail() { echo "prometheus_advise: $*" >&2; tail -n 5 "$tmp/prometheus.log" >&2 || true; exit 1; }

mib=1048576
mkdir -p "$tmp/root"
for name in app other; do
  cp -r "$fixtures/cgroup-v2-6.12-throttled/lab-run1" "$tmp/root/$name"
  echo max > "$tmp/root/$name/memory.high"
  echo max > "$tmp/root/$name/memory.max"
done
(
  mb=30
  while :; do
    ((mb < 40)) && mb=$((mb + 1))
    printf 'anon %d\nfile %d\ninactive_file %d\n' $(((mb - 4) * mib)) $((4 * mib)) $((4 * mib)) > "$tmp/root/app/memory.stat"
    echo $((mb * mib)) > "$tmp/root/app/memory.current"
    sleep 0.5
  done
) &
writer_pid=$!

start_exporter "$cgmem" "$tmp/root" "$tmp"
start_prometheus "$LISTEN" "$tmp"
url="http://127.0.0.1:$PROM_PORT"

# Until Prometheus holds 12 s of /app at its top, or 60 s pass.
samples() {
  curl -fsS --max-time 2 "$url/api/v1/query" \
    --data-urlencode 'query=count_over_time((cgmem_memory_current_bytes{cgroup="/app"} >= 41943040)[1m:1s])' 2>/dev/null |
    jq -r '.data.result[0].value[1] // 0' 2>/dev/null || echo 0
}
for _ in $(seq 60); do
  (($(samples) >= 12)) && break
  sleep 1
done
(($(samples) >= 12)) || fail "Prometheus never held 12 s of /app at 40 MiB"

"$cgmem" advise --prometheus "$url" --selector '{cgroup="/app"}' --range 5m --json > "$tmp/advice.json" 2> "$tmp/advise.err" ||
  fail "advise failed: $(cat "$tmp/advise.err")"
jq -e '.working_set_bytes == 37748736' "$tmp/advice.json" > /dev/null ||
  fail "working set $(jq .working_set_bytes "$tmp/advice.json"), not 40 MiB - 4 MiB of inactive_file"
jq -e '.peak_current_bytes == 41943040 and .inputs[0].dir == "/app" and .vpa.peaks == 1' "$tmp/advice.json" > /dev/null ||
  fail "peak, input or VPA peaks: $(jq -c '[.peak_current_bytes, .inputs[0].dir, .vpa.peaks]' "$tmp/advice.json")"
jq -e '.memory_max_bytes == 47185920 and (.notes | map(test("from Prometheus")) | any)' "$tmp/advice.json" > /dev/null ||
  fail "memory.max or the note: $(jq -c '[.memory_max_bytes, .notes]' "$tmp/advice.json")"

# refused SELECTOR TEXT: advise exits 1 and says TEXT.
refused() {
  if "$cgmem" advise --prometheus "$url" --selector "$1" --range 5m > "$tmp/out" 2>&1; then fail "$1 was not refused"; fi
  grep -qF -- "$2" "$tmp/out" || fail "$1: $(cat "$tmp/out")"
}
refused '{cgroup=~"/.*"}' 'matched 2 series (/app, /other): narrow the selector to one cgroup'
refused '{cgroup="/none"}' 'no series of the working set matched {cgroup="/none"}'
refused 'cgroup="/app"' 'is not one {...} of label matchers'
echo "prometheus_advise: working set $(jq .working_set_bytes "$tmp/advice.json"), memory.max $(jq .memory_max_bytes "$tmp/advice.json")"
