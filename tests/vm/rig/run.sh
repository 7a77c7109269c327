# The VM rig's batch, run in the guest by `cgmem vm --script run.sh`: every
# scenario in scenarios/*.sh (or only the NAMEs given as arguments) runs in
# its own directory NAME/ under the working directory, which comes back to
# the host as --out DIR. Its output goes to NAME/log, its exit code to
# NAME/status. cgmem, cgmem-alloc and cgroup-probe are on PATH.
# Host-side checks on those files: tests/vm/vm_rig_test.cpp. See docs/vm.md.
rig=$(dirname "$0")/rig
[ -d "$rig" ] || rig=/vm/in/rig
. "$rig/lib.sh"
for path in "$rig"/scenarios/*.sh; do
  name=$(basename "$path" .sh)
  if [ $# -gt 0 ]; then
    case " $* " in *" $name "*) ;; *) continue ;; esac
  fi
  mkdir -p "$name"
  start=$(cut -d' ' -f1 /proc/uptime)
  (cd "$name" && . "$path") > "$name/log" 2>&1
  echo $? > "$name/status"
  echo "rig: $name: status $(cat "$name/status"), from uptime $start to $(cut -d' ' -f1 /proc/uptime) s" >&2
done
exit 0
