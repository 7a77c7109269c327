# Helpers for the rig's scenarios (sourced by run.sh; busybox ash).

# new_cgroup NAME: creates $CGMEM_CGROUP_PARENT/NAME (memory, io, cpu and
# cpuset are enabled there) and prints its path.
new_cgroup() {
  local cg="$CGMEM_CGROUP_PARENT/$1"
  mkdir "$cg" || return 1
  echo "$cg"
}

# run_in CGROUP CMD ARGS...: runs CMD as a member of CGROUP.
run_in() {
  sh -c 'echo $$ > "$1/cgroup.procs" && shift && exec "$@"' run_in "$@"
}

# remove_cgroup CGROUP: kills what is left in it, waits until it is empty
# (at most 5 s) and removes it.
remove_cgroup() {
  echo 1 > "$1/cgroup.kill"
  local i=0
  while grep -q "populated 1" "$1/cgroup.events" && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
  rmdir "$1"
}
