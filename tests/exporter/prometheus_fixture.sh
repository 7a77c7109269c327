#!/usr/bin/env bash
# `cgmem exporter` on 127.0.0.1 (a free port) over a fixture tree (the files
# of a real throttled cgroup) whose memory.events high counter rises by 170
# (ten sleeps) every half second, scraped by a real Prometheus
# (prometheus_scrape.sh). The exporter is stopped with SIGTERM by its PID
# and must exit 0.
#   prometheus_fixture.sh CGMEM FIXTURES [IDLE LORIS]
# With IDLE and LORIS: idle and slow clients must not delay a scrape. IDLE
# TCP connections that send nothing and LORIS that send half a request a
# byte every half second are held, each opened again whenever the exporter
# closes it (idle_clients.py); meanwhile five scrapes by curl must each
# answer within 2 s, and Prometheus (a 1 s scrape timeout) must see up == 1
# for every scrape of its last 5 s.
set -euo pipefail
cgmem=${1:?usage: prometheus_fixture.sh CGMEM FIXTURES [IDLE LORIS]}
fixtures=${2:?}
idle=${3:-0}
loris=${4:-0}
here=$(dirname "$0")
tmp=$(mktemp -d)
exporter_pid= writer_pid= clients_pid=
cleanup() {
  [[ -n $clients_pid ]] && kill "$clients_pid" 2>/dev/null
  [[ -n $writer_pid ]] && kill "$writer_pid" 2>/dev/null
  [[ -n $exporter_pid ]] && kill "$exporter_pid" 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT

mkdir -p "$tmp/root"
cp -r "$fixtures/cgroup-v2-6.12-throttled/lab-run1" "$tmp/root/throttled"
(
  high=309
  while :; do
    high=$((high + 170))
    for f in memory.events memory.events.local; do
      printf 'low 0\nhigh %d\nmax 0\noom 0\noom_kill 0\noom_group_kill 0\n' "$high" > "$tmp/root/throttled/$f"
    done
    sleep 0.5
  done
) &
writer_pid=$!

. "$here/../support/prometheus.sh"
start_exporter "$cgmem" "$tmp/root" "$tmp"
exporter_pid=$EXPORTER_PID
listen=$LISTEN
curl -fsS "http://$listen/healthz"

if ((idle + loris == 0)); then
  bash "$here/prometheus_scrape.sh" "$listen" /throttled 60 "$exporter_pid"
else
  timeout 120 python3 "$here/idle_clients.py" "$listen" "$idle" "$loris" > "$tmp/clients.out" &
  clients_pid=$!
  # A server whose accept loop stalls opens them slowly (its listen backlog
  # is full): the scrapes below then show what a scraper meets.
  for _ in $(seq 300); do
    [[ -s $tmp/clients.out ]] && break
    sleep 0.1
  done
  [[ -s $tmp/clients.out ]] || echo "idle_clients.py has not opened all its connections after 30 s" >&2
  sleep 1

  times=()
  for _ in 1 2 3 4 5; do
    t=$(curl -fsS -o /dev/null -w '%{time_total}' --max-time 10 "http://$listen/metrics") ||
      { echo "a scrape beside idle connections failed (after ${t:-?} s)" >&2; exit 1; }
    times+=("$t")
  done
  median=$(printf '%s\n' "${times[@]}" | sort -n | sed -n 3p)
  echo "scrapes beside $idle idle and $loris slow connections: ${times[*]} s (median $median s)"
  for t in "${times[@]}"; do
    (($(echo "$t < 2" | bc -l))) || { echo "a scrape took $t s beside idle connections, not under 2 s" >&2; exit 1; }
  done

  ALSO='min_over_time(up{job="cgmem"}[5s])' bash "$here/prometheus_scrape.sh" "$listen" /throttled 60 "$exporter_pid"
  kill -0 "$clients_pid" 2>/dev/null || { echo "idle_clients.py ended early" >&2; exit 1; }
  kill "$clients_pid"
  wait "$clients_pid" 2>/dev/null || true
  clients_pid=
fi

kill -TERM "$exporter_pid"
code=0
wait "$exporter_pid" || code=$?
exporter_pid=
[[ $code -eq 0 ]] || { echo "cgmem exporter exited $code on SIGTERM, not 0:" >&2; cat "$tmp/exporter.err" >&2; exit 1; }
echo "cgmem exporter stopped on SIGTERM with exit code 0"
