# `cgmem run --trace` on cgmem's kernel (memcg-trace patch, one stock slot:
# 6.12's rule), in one boot (`cgmem vm --script`; tests/kernel/CMakeLists.txt):
# a run beside a neighbour and one alone, each with and without --trace (the
# trace must not change the sleeps it explains), four processes, and a run
# interrupted with SIGINT, after which no instance of cgmem's is left and no
# event is on. The neighbour charges every 10 ms, shorter than any sleep, so
# every throttled op is in the per-page regime from its first sleep (at the
# study's 100 ms the sleeps reach it only after some seconds, and a 20 s run
# has one whole op past that). Scaled as tests/kernel/versions is:
# memory.high = 28.8 MiB. Checks: tests/kernel/trace_vm_test.cpp.
H=30198988

run() {
  name=$1
  shift
  cgmem run --name "$name" --out "$name" --quiet "$@" > "$name.out" 2> "$name.err"
  echo $? > "$name.status"
  echo "trace: $name: exit $(cat "$name.status") at uptime $(cut -d' ' -f1 /proc/uptime) s" >&2
}

cgmem host --json > host.json
run neighbour-trace --high $H --cap 20 --neighbour 10ms --trace -- --target 40M
run neighbour-plain --high $H --cap 20 --neighbour 10ms -- --target 40M
run alone-trace --high $H --cap 15 --trace -- --target 40M
run alone-plain --high $H --cap 15 -- --target 40M
run procs4-trace --high $H --cap 20 --trace -- --target 40M --procs 4

# SIGINT 4 s into a traced run: the driver ends it, writes what it traced
# and removes its instance.
cgmem run --name sigint-trace --out sigint-trace --quiet --high $H --cap 60 --neighbour 100ms --trace \
  -- --target 40M > sigint-trace.out 2> sigint-trace.err &
pid=$!
sleep 4
kill -INT $pid
wait $pid
echo $? > sigint-trace.status
ls /sys/kernel/tracing/instances > instances-after.txt
for e in memcg_stock_drain memcg_stock_drain_all memcg_high_penalty memcg_high_sleep; do
  echo "$e $(cat /sys/kernel/tracing/events/memcg/$e/enable)"
done > enabled-after.txt
echo "sched_switch $(cat /sys/kernel/tracing/events/sched/sched_switch/enable)" >> enabled-after.txt
exit 0
