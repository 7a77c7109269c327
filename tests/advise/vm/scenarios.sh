# `cgmem advise --verify` on the real kernel, in one boot of the VM: each
# variant of the workload runs once without limits, advise recommends
# limits from that run, and --verify runs it again under them.
#   fit       24 MiB held, churning: fits, never killed, no stall
#   populate  the same with MAP_POPULATE
#   procs     the same split over 4 processes
#   large     256 MiB held: above the VPA rule's 250 MiB floor, so its
#             slack compares with advise's
#   cache     a 32 MiB file read through the page cache, 4 MiB of its own:
#             the working set leaves the inactive page cache out, and the
#             run under the limits reads it back (advise says so)
#   cache-all the same with --page-cache: the limits hold the cache
#   cache-probe the same program for 20 s with --probe: memory.high stepped
#             down until memory PSI rises finds the cache it reads again
#   leak      still growing when its cap stops it: killed under the limits
#   live      a workload's cgroup watched live (advise --cgroup) while it runs
# Out: NAME/ (the run without limits), NAME-verify/ (the run under advise's
# limits), NAME.json (advise --verify --json), NAME.status (its exit code),
# NAME.err. Checks: tests/advise/advise_vm_test.cpp.
case_of() {  # NAME CAP ADVISE-FLAG WORKLOAD-ARGS... (the flag "-" for none)
  name=$1 cap=$2 flag=$3
  shift 3
  [ "$flag" = - ] && flag=
  cgmem run --name "$name" --out "$name" --quiet --cap "$cap" -- "$@" > "$name.run" 2> "$name.err"
  cgmem advise --verify --json $flag "$name" > "$name.json" 2>> "$name.err"
  echo $? > "$name.status"
}

case_of fit 8 - --target 24M --churn 300
case_of populate 8 - --target 24M --churn 300 --populate
case_of procs 8 - --target 24M --churn 300 --procs 4
case_of large 40 - --target 256M --churn 100
case_of cache 8 - --target 4M --churn 300 --file cache.dat --file-size 32M
case_of cache-all 8 --page-cache --target 4M --churn 300 --file cache.dat --file-size 32M
case_of cache-probe 20 --probe --target 4M --churn 1000000 --file cache.dat --file-size 32M
case_of leak 0.5 - --target 300M
rm -f cache.dat

cgmem run --name live --out live --quiet --cap 8 -- --target 24M --churn 100000 > live.run 2>&1 &
sleep 3
cgmem advise --cgroup /sys/fs/cgroup/cgmem/live --for 3s --interval 200ms --json > live.json 2> live.err
echo $? > live.status
wait
exit 0
