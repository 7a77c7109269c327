# memory.high = 28M alone (no memory.max), the same 40 MiB process: after
# 10 s it is still alive (throttled, not killed) while the high counter and
# memory.pressure "some total" rose.
cg=$(new_cgroup throttle_at_high)
echo 28M > "$cg/memory.high"
cat "$cg/memory.events" > memory.events.before
cat "$cg/memory.pressure" > memory.pressure.before
run_in "$cg" cgmem-alloc 40 > alloc.out 2>&1 &
pid=$!
sleep 10
if kill -0 $pid 2>/dev/null; then echo yes; else echo no; fi > alive_after_10s
cat "$cg/memory.events" > memory.events.after
cat "$cg/memory.pressure" > memory.pressure.after
cat "$cg/memory.current" > memory.current
remove_cgroup "$cg"
wait $pid
echo $? > alloc_status
