# What differs by kernel, in one boot of each kernel the tests boot besides
# Debian's 6.12 (`cgmem vm --script`; tests/kernel/CMakeLists.txt): the
# study's two regimes of sleeps per throttled op, a neighbour cgroup on the
# workload's CPU, and the kernel's own memory-controller selftest. With the
# argument "many", a run with 8 neighbours too: one more cgroup than the 7
# slots of Linux 6.16's per-CPU charge stock. Scaled as tests/lab/vm is:
# memory.high = 28.8 MiB. Checks: tests/kernel/versions_vm_test.cpp.
H=30198988

run() {
  name=$1
  shift
  cgmem run --name "$name" --out "$name" --quiet "$@" > "$name.out" 2> "$name.err"
  echo $? > "$name.status"
  echo "versions: $name: exit $(cat "$name.status") at uptime $(cut -d' ' -f1 /proc/uptime) s" >&2
}

cgmem host --json > host.json
cat /proc/cmdline > cmdline.txt
run sleeps-default --high $H --cap 15 -- --target 40M
run sleeps-neighbour --high $H --cap 40 --neighbour 100ms -- --target 40M
if [ "$1" = many ]; then
  run sleeps-neighbours8 --high $H --cap 40 --neighbour 100ms --neighbours 8 -- --target 40M
fi
. /vm/in/memcontrol_selftest.sh
memcontrol_selftest selftest
exit 0
