# The patched kernel's memory.high.throttle, checked in the guest by
# `cgmem vm --kernel hz1000-throttle-slots-trace --script run.sh`; everything lands in the
# working directory, which comes back as --out DIR and is checked by
# kernel_vm_test.cpp on the host.
#
# files/: where the file exists, what it reads, what writes it takes.
root=/sys/fs/cgroup
parent=$CGMEM_CGROUP_PARENT
mkdir -p files
[ -e "$root/memory.high.throttle" ] && echo yes > files/on_root || echo no > files/on_root
[ -e "$parent/memory.high.throttle" ] && echo yes > files/on_parent || echo no > files/on_parent
cg=$parent/knob
mkdir "$cg"
cat "$cg/memory.high.throttle" > files/default
# One line per value written: "VALUE ok|rejected READ-BACK".
for v in 0 1 16 32 33 -1 abc 1.5 ''; do
  if echo "$v" > "$cg/memory.high.throttle" 2>/dev/null; then r=ok; else r=rejected; fi
  echo "[$v] $r $(cat "$cg/memory.high.throttle")"
done > files/writes
rmdir "$cg"

# The same growth at shift 0 and 1: memory.high 16M, no memory.max, no swap,
# 256 KiB operations to 19M on CPU 0, the sampler on CPU 1 (one sleep per
# batch). Each run's ops.jsonl holds the latency at each usage.
for shift in 0 1; do
  cgmem run --name shift$shift --out shift$shift --high 16M --high-throttle "$shift" --cap 60s \
    --cpu 0 --sampler-cpu 1 --quiet -- --target 19M > shift$shift.out 2>&1
  echo $? > shift$shift.status
done

# The guard's emulate-shift S on this kernel at memory.high.throttle 0 (gS)
# against the kernel itself at S (kS): the study's leak next to a neighbour,
# through the benchmark's own guest script (bench/guard_vs_kernel_guest.sh,
# given with --file), at S = 2 (the shifted kernel still crawls for about
# 40 s) and S = 4 (under a second), without its kill-rule run.
mkdir guard-vs-kernel
(cd guard-vs-kernel && sh /vm/in/guard_vs_kernel_guest.sh 120 "2 4" 100ms 100ms no) > guard-vs-kernel.log 2>&1
exit 0
