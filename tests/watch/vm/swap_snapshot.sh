# Takes the fixture tests/fixtures/watch-vm-6.12-swap in one boot of the VM
# with zram swap (not a CI test: the snapshot is checked in, and
# tests/watch/sequence_test.cpp replays it):
#   cgmem vm --swap 128M --script tests/watch/vm/swap_snapshot.sh --out OUT
# Three cgroups made with `cgmem run` (scaled from the study as scenarios.sh
# is: memory.max 32 MiB, memory.high 28.8 MiB), each growing to 40 MiB of
# anonymous memory and then churning (every operation copies a random chunk
# it holds, so pages swapped out come back in):
#   swapping   memory.high: reclaim swaps out what the copies swap back in
#   swapmax    memory.max: the same at memory.max (without swap, the OOM kill)
#   swaphigh   memory.max and memory.swap.high 4 MiB (written here: `cgmem
#              run` has no flag for it): the swap term of the throttle
# Then:
#   snap/          `cgmem watch --snapshot` of the tree (the fixture)
#   watch.jsonl    `cgmem watch --json --count 3`, for the record
#   top.txt        `cgmem top --once`
#   *.stat         each cgroup's memory.stat just before the snapshot
#   swaps.txt, meminfo.txt, release.txt
M=33554432
H=30198988
P=/sys/fs/cgroup/cgmem

start() {
  name=$1
  shift
  cgmem run --name "$name" --out "$name" --quiet "$@" > "$name.out" 2> "$name.err" &
  echo $! > "$name.pid"
}

start swapping --high $H --cap 150 -- --target 40M --churn 1000000
start swapmax --max $M --cap 150 -- --target 40M --churn 1000000
start swaphigh --max $M --cap 150 -- --target 40M --churn 1000000
tries=0
while [ ! -f $P/swaphigh/memory.swap.high ] && [ $tries -lt 500 ]; do
  usleep 10000 2> /dev/null || sleep 1
  tries=$((tries + 1))
done
echo 4194304 > $P/swaphigh/memory.swap.high
echo "swap-snapshot: memory.swap.high written after $tries polls, swap.current $(cat $P/swaphigh/memory.swap.current)" >&2

sleep 30
echo "swap-snapshot: states reached at uptime $(cut -d' ' -f1 /proc/uptime)" >&2
cat /proc/swaps > swaps.txt
cat /proc/meminfo > meminfo.txt
uname -r > release.txt
for name in swapping swapmax swaphigh; do cat $P/$name/memory.stat > $name.stat; done
cgmem watch --snapshot snap --interval 2s > snap.out 2> snap.err
echo $? > snap.status
cgmem watch --json --count 3 --interval 2s > watch.jsonl 2> watch.err
echo $? > watch.status
cgmem top --once --interval 1s > top.txt 2> top.err
echo $? > top.status

for name in swapping swapmax swaphigh; do kill -INT "$(cat $name.pid)" 2> /dev/null; done
for name in swapping swapmax swaphigh; do wait "$(cat $name.pid)" 2> /dev/null; done
exit 0
