#!/usr/bin/env bash
# A simulated fleet scraped by a real Prometheus (Debian's), on loopback:
# HOSTS `cgmem exporter`s, each over its own generated tree of CGROUPS
# cgroups laid out as a Kubernetes node's (kubepods.slice, a slice per pod,
# a cri-containerd scope per container, with the files of the real throttled
# cgroup), whose counters change every second (a tenth of the cgroups grow
# or shrink, their page faults rise). One Prometheus scrapes them all every
# 15 s with the shipped alert and recording rules, evaluated every 15 s.
# After 60 s one container of the first host becomes throttled (memory.high
# under its usage, memory.events high and memory PSI rising); the script
# notes when CgroupThrottledByMemoryHigh goes pending and fires.
#
# Measured from Prometheus itself at the end: active series, samples
# appended a second, its heap and RSS per series, scrape duration and
# samples per scrape, rule group evaluation time; and the exporters' CPU.
# Everything listens on 127.0.0.1, is bounded by MINUTES and is stopped by
# its PID. Prints `uptime` first and last: the machine may be shared.
#   bash bench/fleet_prometheus.sh CGMEM [HOSTS] [CGROUPS] [MINUTES]
# Defaults: 20 hosts of 300 cgroups, 8 minutes (the throttled alert waits 5).
set -euo pipefail
cgmem=${1:?usage: fleet_prometheus.sh CGMEM [HOSTS] [CGROUPS] [MINUTES]}
hosts=${2:-20}
cgroups=${3:-300}
minutes=${4:-8}
here=$(cd "$(dirname "$0")/.." && pwd)
fixture=$here/tests/fixtures/cgroup-v2-6.12-throttled/lab-run1
command -v prometheus >/dev/null || { echo "prometheus missing: apt-get install prometheus" >&2; exit 3; }
base=/dev/shm
[[ -d $base ]] || base=/tmp
work=$(mktemp -d "$base/cgmem-fleet-XXXXXX")
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

echo "uptime: $(uptime)"
echo "fleet: $hosts hosts of $cgroups cgroups, $minutes minutes, in $work"

# The trees, and the fleet's clock: every second a tenth of the cgroups
# move; from THROTTLE_AT on, one container of host 0 is throttled.
cat > "$work/fleet.py" <<'PY'
import os, random, re, sys, time, uuid
work, hosts, cgroups, fixture, mode = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]
rng = random.Random(1)
names = ["memory.current", "memory.high", "memory.max", "memory.events", "memory.events.local",
         "memory.stat", "memory.pressure", "io.pressure", "memory.swap.current", "memory.swap.max"]
fixed = {n: open(os.path.join(fixture, n)).read() for n in names}
zero_events = "low 0\nhigh 0\nmax 0\noom 0\noom_kill 0\noom_group_kill 0\n"
def cgroup_dirs(h):
    root = os.path.join(work, f"host{h}")
    dirs, qos = [], os.path.join(root, "kubepods.slice", "kubepods-burstable.slice")
    pods = max(1, cgroups // 2)
    for p in range(pods):
        pid = uuid.UUID(int=rng.getrandbits(128)).hex
        pod = os.path.join(qos, f"kubepods-burstable-pod{pid}.slice")
        dirs.append(pod)
        if len(dirs) < cgroups:
            dirs.append(os.path.join(pod, "cri-containerd-" + "%064x" % rng.getrandbits(256) + ".scope"))
    return root, dirs[:cgroups]
def write(path, text):
    with open(path, "w") as f:
        f.write(text)
if mode == "make":
    for h in range(hosts):
        root, dirs = cgroup_dirs(h)
        for d in dirs:
            os.makedirs(d, exist_ok=True)
            for n in names:
                text = fixed[n]
                if n == "memory.current": text = f"{rng.randrange(16, 200) << 20}\n"
                if n == "memory.high": text = "max\n"
                if n == "memory.max": text = f"{256 << 20}\n"
                if n in ("memory.events", "memory.events.local"): text = zero_events
                write(os.path.join(d, n), text)
        with open(os.path.join(work, f"host{h}.list"), "w") as f:
            f.write("\n".join(dirs) + "\n")
    sys.exit(0)
# mode "run": THROTTLE_AT END (unix seconds)
throttle_at, end = float(sys.argv[6]), float(sys.argv[7])
lists = [open(os.path.join(work, f"host{h}.list")).read().split() for h in range(hosts)]
victim = next(d for d in lists[0] if d.endswith(".scope"))
faults = {}
high = some = 0
while time.time() < end:
    for dirs in lists:
        for d in rng.sample(dirs, max(1, len(dirs) // 10)):
            if d == victim:
                continue
            write(os.path.join(d, "memory.current"), f"{rng.randrange(16, 200) << 20}\n")
            faults[d] = faults.get(d, 0) + rng.randrange(100, 5000)
            stat = re.sub(r"(?m)^pgfault \d+$", f"pgfault {faults[d]}", fixed["memory.stat"])
            write(os.path.join(d, "memory.stat"), stat)
    if time.time() >= throttle_at:
        if high == 0:
            print(f"throttled {victim} at {time.time():.3f}", flush=True)
        high += 340
        some += 900000
        events = f"low 0\nhigh {high}\nmax 0\noom 0\noom_kill 0\noom_group_kill 0\n"
        write(os.path.join(victim, "memory.high"), f"{100 << 20}\n")
        write(os.path.join(victim, "memory.current"), f"{120 << 20}\n")
        write(os.path.join(victim, "memory.events"), events)
        write(os.path.join(victim, "memory.events.local"), events)
        write(os.path.join(victim, "memory.pressure"),
              f"some avg10=90.00 avg60=50.00 avg300=20.00 total={some}\n"
              f"full avg10=90.00 avg60=50.00 avg300=20.00 total={some}\n")
    time.sleep(max(0.0, 1 - (time.time() % 1)))
PY
python3 "$work/fleet.py" "$work" "$hosts" "$cgroups" "$fixture" make
mkdir -p "$work/proc"  # no tasks: the exporters list none

targets=()
for h in $(seq 0 $((hosts - 1))); do
  # --max-series with room for every cgroup (64 series each, more than one
  # can have): the default 12,000 admits 255, and the fleet measured here
  # exports all of its cgroups, the throttled one among them.
  "$cgmem" exporter --listen 127.0.0.1:0 --json --root "$work/host$h" --proc-root "$work/proc" --interval 10s \
    --hz 250 --max-series $((cgroups * 64)) > "$work/exporter$h.out" 2> "$work/exporter$h.err" &
  pids+=("$!")
  echo "$!" > "$work/exporter$h.pid"
done
for h in $(seq 0 $((hosts - 1))); do
  for _ in $(seq 300); do [[ -s $work/exporter$h.out ]] && break; sleep 0.1; done
  listen=$(jq -r .listen "$work/exporter$h.out" 2>/dev/null || true)
  [[ -n $listen && $listen != null ]] || { echo "exporter $h printed no address:" >&2; cat "$work/exporter$h.err" >&2; exit 1; }
  targets+=("'$listen'")
done

port=$(free_port)
cp "$here/deploy/prometheus/cgmem-rules.yml" "$here/deploy/prometheus/cgmem-recording.yml" "$work/"
cat > "$work/prometheus.yml" <<YML
global:
  scrape_interval: 15s
  scrape_timeout: 10s
  evaluation_interval: 15s
rule_files: [cgmem-rules.yml, cgmem-recording.yml]
scrape_configs:
  - job_name: cgmem
    static_configs:
      - targets: [$(IFS=,; echo "${targets[*]}")]
  - job_name: prometheus
    static_configs:
      - targets: ['127.0.0.1:$port']
YML
prometheus --config.file="$work/prometheus.yml" --storage.tsdb.path="$work/data" \
  --web.listen-address="127.0.0.1:$port" --log.level=warn > "$work/prometheus.log" 2>&1 &
prom=$!
pids+=("$prom")

start=$(date +%s)
end=$((start + minutes * 60))
python3 "$work/fleet.py" "$work" "$hosts" "$cgroups" "$fixture" run "$((start + 60))" "$end" > "$work/fleet.log" 2>&1 &
pids+=("$!")

query() {  # the first value of an instant query, or empty
  curl -fsS --max-time 5 "http://127.0.0.1:$port/api/v1/query" --data-urlencode "query=$1" 2>/dev/null |
    jq -r '.data.result[0].value[1] // empty' 2>/dev/null || true
}
pending= firing=
while (($(date +%s) < end)); do
  if [[ -z $firing ]]; then
    state=$(curl -fsS --max-time 5 "http://127.0.0.1:$port/api/v1/query" \
      --data-urlencode 'query=ALERTS{alertname="CgroupThrottledByMemoryHigh"}' 2>/dev/null |
      jq -r '[.data.result[].metric.alertstate] | join(",")' 2>/dev/null || true)
    [[ -z $pending && $state == *pending* ]] && pending=$(date +%s.%N)
    [[ $state == *firing* ]] && firing=$(date +%s.%N) && { [[ -n $pending ]] || pending=$firing; }
  fi
  sleep 2
done

throttled_at=$(awk '/^throttled/{print $NF}' "$work/fleet.log")
exporter_cpu=0
for h in $(seq 0 $((hosts - 1))); do
  ticks=$(awk '{print $14 + $15}' "/proc/$(cat "$work/exporter$h.pid")/stat")
  exporter_cpu=$((exporter_cpu + ticks))
done
series=$(query 'prometheus_tsdb_head_series')
samples_s=$(query 'rate(prometheus_tsdb_head_samples_appended_total[2m])')
heap=$(query 'go_memstats_heap_inuse_bytes{job="prometheus"}')
rss=$(query 'process_resident_memory_bytes{job="prometheus"}')
scrape_avg=$(query 'avg(avg_over_time(scrape_duration_seconds{job="cgmem"}[2m]))')
scrape_max=$(query 'max(max_over_time(scrape_duration_seconds{job="cgmem"}[2m]))')
per_scrape=$(query 'avg(scrape_samples_scraped{job="cgmem"})')
rules_alert=$(query 'prometheus_rule_group_last_duration_seconds{rule_group=~".*;cgmem"}')
rules_fleet=$(query 'prometheus_rule_group_last_duration_seconds{rule_group=~".*;cgmem-fleet"}')
recorded=$(query 'count({__name__=~"instance:cgmem_.*|cgmem_cgroups:count_by_state"})')
dropped=$(query 'sum(cgmem_exporter_cgroups_dropped)')
python3 - "$hosts" "$cgroups" "$minutes" "$series" "$samples_s" "$heap" "$rss" "$scrape_avg" "$scrape_max" \
  "$per_scrape" "$rules_alert" "$rules_fleet" "$recorded" "$exporter_cpu" "$(getconf CLK_TCK)" \
  "${throttled_at:-}" "${pending:-}" "${firing:-}" "${dropped:-}" <<'PY'
import sys
a = sys.argv[1:]
hosts, cgroups, minutes = int(a[0]), int(a[1]), float(a[2])
num = lambda s: float(s) if s else float("nan")
series, samples_s, heap, rss, s_avg, s_max, per_scrape, r_alert, r_fleet, recorded = map(num, a[3:13])
cpu_s = int(a[13]) / int(a[14])
throttled, pending, firing, dropped = (num(x) for x in a[15:19])
print()
print(f"| hosts x cgroups | active series | samples/s | per scrape | scrape (avg, max) | heap per series | RSS per series | alert rules | recording rules |")
print(f"|---|---|---|---|---|---|---|---|---|")
print(f"| {hosts} x {cgroups} | {series:,.0f} | {samples_s:,.0f} | {per_scrape:,.0f} | {s_avg * 1e3:.1f} ms, {s_max * 1e3:.1f} ms "
      f"| {heap / series:,.0f} B | {rss / series:,.0f} B | {r_alert * 1e3:.2f} ms | {r_fleet * 1e3:.2f} ms |")
print()
print(f"recording rules: {recorded:.0f} series ({recorded / series * 100:.2f}% of the active series)")
print(f"exporters: {cpu_s:.1f} s of CPU in {minutes:.0f} min for {hosts * cgroups} cgroups "
      f"({cpu_s / (minutes * 60) / hosts * 100:.2f}% of a core per host at a 10 s interval)")
print(f"cgroups left out by --max-series: {dropped:.0f} (of {hosts * cgroups})")
if throttled == throttled and pending != pending:
    print("CgroupThrottledByMemoryHigh: never pending within the run (the throttled cgroup left out?)")
elif throttled == throttled:
    print(f"CgroupThrottledByMemoryHigh: pending {pending - throttled:.1f} s after the cgroup was throttled, "
          f"firing {firing - throttled:.1f} s after (its for: 5m)")
per_host = series / hosts
for fleet in (1000, 10000):
    s = per_host * fleet
    print(f"at {fleet:,} hosts like these: {s / 1e6:.1f} M series, {samples_s / hosts * fleet:,.0f} samples/s, "
          f"heap about {heap / series * s / 2**30:.0f} GiB in one Prometheus")
PY
echo "uptime: $(uptime)"
