# `cgmem guard` on the real kernel, in one boot of the VM (`cgmem vm --script`),
# scaled down from the study (memory.max 16 MiB) so it all fits in about a
# minute of emulated time. Under /sys/fs/cgroup/cgmem:
#   guarded/leak    the leak under both limits, a neighbour on its CPU: killed by "leak"
#   guarded/fit     fits under memory.max, throttled by memory.high: left alone by "leaks"
#   guarded/svc     the same, relieved by "svc" (raise-high): its ops get fast again
#   guarded/thrash  its own code charged to it: killed by "thrash"
#   dry/victim      throttled, under a dry-run guard: nothing changes; it is also
#                   outside the acting guard's root, whose catch-all rule would kill it
# Out: guard.jsonl, dry.jsonl (the decisions), *.status, RUN/ (run directories),
# dry-before.txt, dry-after.txt. Checks: tests/guard/guard_vm_test.cpp.
IN=/vm/in  # --file policy.toml --file dry.toml
P=/sys/fs/cgroup/cgmem
G=$P/guarded
D=$P/dry
mkdir -p $G $D
echo +memory > $G/cgroup.subtree_control
echo +memory > $D/cgroup.subtree_control

start() {
  name=$1
  shift
  cgmem run --name "$name" --out "$name" --quiet "$@" > "$name.out" 2> "$name.err" &
  echo $! > "$name.pid"
}

files() {  # what a guard could change in a cgroup
  for f in memory.high memory.max cgroup.procs cgroup.events; do echo "$f: $(cat "$1/$f" | tr '\n' ' ')"; done
}

cgmem guard --policy $IN/policy.toml --root $G --act --json --interval 1s > guard.jsonl 2> guard.err &
guard=$!
cgmem guard --policy $IN/dry.toml --root $D --json --interval 1s > dry.jsonl 2> dry.err &
dry=$!

start leak --parent $G --max 16M --high 14745600 --neighbour 100ms --cap 80 -- --target 24M
start fit --parent $G --max 16M --high 12M --cap 80 -- --target 12544K --churn 100000
start svc --parent $G --max 16M --high 12M --cap 80 -- --target 13M --churn 100000
start thrash --parent $G --high 30198988 --cap 80 -- --target 40M --own-code
start victim --parent $D --max 16M --high 12M --cap 80 -- --target 13M --churn 100000

sleep 8
files $D/victim > dry-before.txt
sleep 50
files $D/victim > dry-after.txt

kill -TERM $guard $dry
wait $guard
echo $? > guard.status
wait $dry
echo $? > dry.status
for name in leak fit svc thrash victim; do kill -INT "$(cat $name.pid)" 2> /dev/null; done
for name in leak fit svc thrash victim; do wait "$(cat $name.pid)" 2> /dev/null; done
rmdir $G $D 2> /dev/null
exit 0
