# Page cache is reclaimed, not OOM-killed: reading a 64 MiB file in a cgroup
# with memory.max = 32M keeps memory.current at or below 32 MiB, counts max
# events and pgsteal, and the reader finishes (exit 0).
dd if=/dev/zero of=/vm/page_cache.bin bs=1M count=64 2>/dev/null
sync
echo 3 > /proc/sys/vm/drop_caches
cg=$(new_cgroup page_cache_at_max)
echo 32M > "$cg/memory.max"
run_in "$cg" cat /vm/page_cache.bin > /dev/null
echo $? > reader_status
cat "$cg/memory.current" > memory.current
cat "$cg/memory.peak" > memory.peak
cat "$cg/memory.events" > memory.events
cat "$cg/memory.stat" > memory.stat
remove_cgroup "$cg"
rm -f /vm/page_cache.bin
