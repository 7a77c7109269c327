# A snapshot of a throttled cgroup, for parser fixtures and for the
# "throttled" shape: memory.high = 28M, cgmem-alloc 40 held for 5 s, then
# every readable file of the cgroup into files/, and the process's
# /proc/PID/stat, wchan and cgroup into proc/. To refresh the fixtures, copy
# these directories (see docs/vm.md).
cg=$(new_cgroup snapshot_throttled)
echo 28M > "$cg/memory.high"
run_in "$cg" cgmem-alloc 40 > alloc.out 2>&1 &
pid=$!
sleep 5
mkdir -p files proc
for f in "$cg"/*; do
  [ -f "$f" ] && cat "$f" > "files/$(basename "$f")" 2>/dev/null
done
child=$(head -n1 "$cg/cgroup.procs")
# Between sleeps the task runs (state R, wchan "0") or waits on a page
# (D in folio_wait_bit_common): sample until stat and wchan, read back to
# back, both show it asleep in the throttle.
i=0
while [ $i -lt 100 ]; do
  cat "/proc/$child/wchan" > proc/wchan
  cat "/proc/$child/stat" > proc/stat
  state=$(sed 's/.*) //' proc/stat | cut -c1)
  [ "$state" = D ] && [ "$(cat proc/wchan)" = mem_cgroup_handle_over_high ] && break
  sleep 0.05
  i=$((i + 1))
done
echo >> proc/wchan
cat "/proc/$child/cgroup" > proc/cgroup
uname -r > proc/uname-r
remove_cgroup "$cg"
wait $pid
echo $? > alloc_status
