# In the VM (`cgmem vm --forward HOST:9262 --script guest.sh`): `cgmem
# exporter` serves the real cgroup tree on the guest's port 9262, which the
# host's Prometheus scrapes through QEMU's port forward (vm_scrape.sh),
# while one cgroup is throttled by memory.high and one more is OOM-killed
# and removed (cgmem run removes its cgroup when it ends). Scaled down from
# the study as tests/watch/vm/scenarios.sh is (memory.high 28.8 MiB).
#   exporter.out/.err/.status   the exporter's output and its exit code after SIGTERM
#   scrape.txt                  the guest's own scrape, after the kill, the throttled run still alive
#
# The exporter is the dynamically linked cgmem with its shared libraries,
# brought in as the directory BUNDLE (the static cgmem has no HTTP server:
# Debian's cpp-httplib is a shared library only, docs/fleet.md), started
# through the dynamic loader in that directory.
H=30198988
CAP=${1:-30}
B=/vm/in/${2:?usage: guest.sh CAP BUNDLE}

"$B/ld-linux-x86-64.so.2" --library-path "$B" "$B/cgmem" exporter --listen 0.0.0.0:9262 --interval 1s > exporter.out 2> exporter.err &
exporter=$!
# throttled: anonymous memory past memory.high, nothing to reclaim.
cgmem run --name throttled --out throttled --quiet --high $H --cap "$CAP" -- --target 40M > throttled.out 2> throttled.err &
run=$!
sleep 8
# oom_killed: past memory.max (8 MiB), killed, its cgroup removed before the next scans.
cgmem run --name killed --out killed --quiet --max 8M --cap 20 -- --target 12M > killed.out 2> killed.err
# The guest's own scrape while the throttled run still lives: once it ends
# its cgroup is removed, and a scrape a scan later no longer has it.
wget -q -O scrape.txt http://127.0.0.1:9262/metrics 2> scrape.err
wait $run
kill -TERM $exporter
wait $exporter
echo $? > exporter.status
exit 0
