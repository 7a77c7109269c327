# Sourced in the guest (busybox sh). systemd_units OUT: Debian's systemd
# (brought in with `cgmem vm --program`) as PID 1 of its own PID, mount and
# cgroup namespaces, rooted at the cgroup cgmem/systemd-units, as a
# container runs it; for each case of /vm/in/systemd_cases.txt, a service
# is started (`systemd-run -p ...`, or a unit file OUT/CASE.service with
# `systemctl start`), the memory files of its cgroup are read into
# OUT/CASE.files (FILE=VALUE lines), the starter's exit code and stderr
# into CASE.status and CASE.err. OUT/version is `systemd --version`,
# OUT/ram the bytes of RAM systemd scales shares by.
#
# Why each step: systemd-run must run inside systemd's PID namespace (the
# manager refuses a private-bus peer whose PID it cannot see); the cgroup
# tree is mounted again inside the namespace, so that its root is the
# namespace's; and the unshare process that stays outside is moved out of
# the namespace's root cgroup, which may hold no process once systemd
# enables the memory controller below it. The unit directory has only the
# targets a transient service depends on.
systemd_units() {
  out=$1
  units=/tmp/systemd-units
  cgroup=/sys/fs/cgroup/cgmem/systemd-units
  mkdir -p "$out" "$units" "$cgroup" /run
  /lib/systemd/systemd --version > "$out/version" 2>&1
  for target in default sysinit basic shutdown; do
    printf '[Unit]\nDescription=cgmem check: %s\n' "$target" > "$units/$target.target"
  done
  mount -t tmpfs tmpfs /run
  sh -c 'echo $$ > "$0/cgroup.procs"; exec /usr/bin/unshare --pid --fork --mount --cgroup --propagation private \
    sh -c "mount -t proc proc /proc && umount /sys/fs/cgroup && mount -t cgroup2 cgroup2 /sys/fs/cgroup &&
           exec env container=cgmem SYSTEMD_UNIT_PATH=$1 SYSTEMD_LOG_TARGET=console /lib/systemd/systemd --system"' \
    "$cgroup" "$units" > "$out/systemd.log" 2>&1 &
  unshare_pid=$!
  for i in $(seq 60); do [ -S /run/systemd/private ] && break; sleep 0.5; done
  [ -S /run/systemd/private ] || echo "systemd_units: no /run/systemd/private after 30 s" >> "$out/systemd.log"
  echo "$unshare_pid" > /sys/fs/cgroup/cgroup.procs
  read -r systemd_pid _ < "/proc/$unshare_pid/task/$unshare_pid/children"
  awk '/^MemTotal:/ { print $2 * 1024 }' /proc/meminfo > "$out/ram"
  in_systemd() { /usr/bin/nsenter -t "$systemd_pid" -p -m -- "$@"; }
  grep -v '^#' /vm/in/systemd_cases.txt | while read -r name how properties; do
    [ -n "$name" ] || continue
    if [ "$how" = unit ]; then
      { printf '[Service]\nExecStart=/bin/busybox sleep 60\n'; printf '%s\n' $properties; } > "$units/cgmem-$name.service"
      cp "$units/cgmem-$name.service" "$out/$name.service"
      in_systemd /usr/bin/systemctl start "cgmem-$name.service"
    else
      set --
      for p in $properties; do set -- "$@" -p "$p"; done
      in_systemd /usr/bin/systemd-run --unit="cgmem-$name" "$@" /bin/busybox sleep 60
    fi < /dev/null > "$out/$name.out" 2> "$out/$name.err"
    echo $? > "$out/$name.status"
    : > "$out/$name.files"
    service=$cgroup/system.slice/cgmem-$name.service
    if [ -d "$service" ]; then
      for f in memory.max memory.high memory.low memory.min memory.swap.max memory.zswap.max memory.oom.group; do
        [ -f "$service/$f" ] && echo "$f=$(cat "$service/$f")" >> "$out/$name.files"
      done
    fi
    in_systemd /usr/bin/systemctl stop "cgmem-$name" > /dev/null 2>&1
  done
  # SIGKILL to a PID namespace's init ends every process in it.
  kill -9 "$systemd_pid" "$unshare_pid" 2> /dev/null
  wait "$unshare_pid" 2> /dev/null
  umount /run
  find "$cgroup" -depth -type d -exec rmdir {} + 2> /dev/null
}
