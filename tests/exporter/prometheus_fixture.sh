#!/usr/bin/env bash
# `cgmem exporter` on 127.0.0.1 (a free port) over a fixture tree (the files
# of a real throttled cgroup) whose memory.events high counter rises by 170
# (ten sleeps) every half second, scraped by a real Prometheus
# (prometheus_scrape.sh). The exporter is stopped with SIGTERM by its PID
# and must exit 0.
set -euo pipefail
cgmem=${1:?usage: prometheus_fixture.sh CGMEM FIXTURES}
fixtures=${2:?}
here=$(dirname "$0")
tmp=$(mktemp -d)
exporter_pid= writer_pid=
cleanup() {
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

"$cgmem" exporter --listen 127.0.0.1:0 --json --root "$tmp/root" --interval 1s --hz 250 > "$tmp/exporter.out" 2> "$tmp/exporter.err" &
exporter_pid=$!
for _ in $(seq 50); do
  [[ -s $tmp/exporter.out ]] && break
  sleep 0.1
done
listen=$(jq -r .listen "$tmp/exporter.out")
[[ -n $listen && $listen != null ]] || { echo "the exporter printed no address:" >&2; cat "$tmp/exporter.err" >&2; exit 1; }
curl -fsS "http://$listen/healthz"

bash "$here/prometheus_scrape.sh" "$listen" /throttled 60 "$exporter_pid"

kill -TERM "$exporter_pid"
code=0
wait "$exporter_pid" || code=$?
exporter_pid=
[[ $code -eq 0 ]] || { echo "cgmem exporter exited $code on SIGTERM, not 0:" >&2; cat "$tmp/exporter.err" >&2; exit 1; }
echo "cgmem exporter stopped on SIGTERM with exit code 0"
