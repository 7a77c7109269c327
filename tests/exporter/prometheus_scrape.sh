#!/usr/bin/env bash
# A real Prometheus (Debian's package) on 127.0.0.1, a free port and its own
# temporary data directory, scraping TARGET every second, asked through its
# HTTP API until the cgroup's series is there and
# rate(cgmem_memory_events_high_total[10s]) is above 0 (or the deadline
# passes: a failure). Prometheus is stopped by its PID on exit.
#   prometheus_scrape.sh HOST:PORT CGROUP DEADLINE_S [WHILE_PID]
# WHILE_PID: give up early when that process (what runs the exporter) ends.
# ALSO (environment): a second query that must return a value above 0 too.
set -euo pipefail
target=${1:?usage: prometheus_scrape.sh HOST:PORT CGROUP DEADLINE_S [WHILE_PID]}
cgroup=${2:?}
deadline=${3:?}
while_pid=${4:-}
here=$(dirname "$0")
. "$here/../support/prometheus.sh"

tmp=$(mktemp -d)
PROM_PID=
cleanup() {
  [[ -n $PROM_PID ]] && kill "$PROM_PID" 2>/dev/null && wait "$PROM_PID" 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT
start_prometheus "$target" "$tmp"
port=$PROM_PORT

query() {
  curl -fsS --max-time 2 "http://127.0.0.1:$port/api/v1/query" --data-urlencode "query=$1" 2>/dev/null |
    jq -r '.data.result[0].value[1] // empty' 2>/dev/null || true
}

start=$(date +%s.%N)
series= rate= up=
while :; do
  now=$(date +%s.%N)
  if (($(echo "$now - $start > $deadline" | bc))); then break; fi
  if [[ -n $while_pid ]] && ! kill -0 "$while_pid" 2>/dev/null; then break; fi
  up=$(query "up{job=\"cgmem\"}")
  series=$(query "cgmem_memory_events_high_total{cgroup=\"$cgroup\"}")
  rate=$(query "rate(cgmem_memory_events_high_total{cgroup=\"$cgroup\"}[10s])")
  also_ok=1
  if [[ -n ${ALSO:-} ]]; then
    also=$(query "$ALSO")
    [[ -n $also ]] && (($(echo "$also > 0" | bc -l))) || also_ok=
  fi
  if [[ -n $rate && -n $also_ok ]] && (($(echo "$rate > 0" | bc -l))); then
    state=$(curl -fsS --max-time 2 "http://127.0.0.1:$port/api/v1/query" \
      --data-urlencode "query=cgmem_state{cgroup=\"$cgroup\"} == 1" | jq -r '.data.result[0].metric.state // "none"')
    printf 'prometheus: %s scraped after %.1f s: cgmem_memory_events_high_total=%s, rate over 10s=%s/s, state=%s\n' \
      "$cgroup" "$(echo "$now - $start" | bc)" "$series" "$rate" "$state"
    [[ -n ${ALSO:-} ]] && echo "prometheus: $ALSO = $also"
    exit 0
  fi
  sleep 1
done
echo "prometheus: no rising cgmem_memory_events_high_total{cgroup=\"$cgroup\"} from $target within ${deadline}s" \
  "(up=${up:-none}, series=${series:-none}, rate=${rate:-none}${ALSO:+, $ALSO = ${also:-none}})" >&2
tail -n 20 "$tmp/prometheus.log" >&2
exit 1
