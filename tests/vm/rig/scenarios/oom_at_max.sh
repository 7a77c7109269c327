# memory.max = 32M alone, a process allocating 40 MiB: the kernel OOM-kills
# it (exit 137) and memory.events counts oom_kill 1.
cg=$(new_cgroup oom_at_max)
echo 32M > "$cg/memory.max"
run_in "$cg" cgmem-alloc 40 > alloc.out 2>&1
echo $? > alloc_status
cat "$cg/memory.events" > memory.events
cat "$cg/memory.max" > memory.max
remove_cgroup "$cg"
