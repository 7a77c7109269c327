# Sourced by the tests that start daemons or containers which would
# otherwise reach this machine's cgroups or network (Slurm, podman).
#   own_namespace NAME "$@": run the calling script again in a mount and
#     network namespace of its own (needs root; NAME prefixes the errors),
#     there with loopback up, the only interface, and /sys/fs/cgroup a
#     read-only view without the hierarchies mounted under it, so nothing
#     started there can create, change or remove a cgroup of the machine's.
#     Returns in the namespace; before it, the call does not return.
own_namespace() {
  local name=$1
  shift
  if [[ ${CGMEM_OWN_NAMESPACE:-} != "$$" ]]; then
    command -v unshare > /dev/null || { echo "$name: unshare missing (util-linux)" >&2; exit 1; }
    [[ $(id -u) -eq 0 ]] || { echo "$name: needs root (a mount and network namespace of its own)" >&2; exit 1; }
    # exec keeps the PID, which tells the script run again that it is inside.
    CGMEM_OWN_NAMESPACE=$$ exec unshare --net --mount --propagation private bash "$0" "$@"
  fi
  ip link set lo up
  mount --bind -o ro /sys/fs/cgroup /sys/fs/cgroup
  mount -o remount,bind,ro /sys/fs/cgroup
}
