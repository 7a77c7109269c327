# `cgmem watch` on the real kernel, in one boot of the VM (`cgmem vm --script`).
# Several cgroups in different states at once, made with `cgmem run` (scaled
# from the study: memory.max 32 MiB, memory.high 28.8 MiB), then:
#   snap/          `cgmem watch --snapshot` of the tree (the fixtures' source)
#   watch.jsonl    `cgmem watch --json --count 5` while one more run is OOM-killed
#   top.txt        `cgmem top --once`
#   dmesg.txt      the kernel log (the kill's time, for the event delay)
# Checks: tests/watch/watch_vm_test.cpp.
M=33554432
H=30198988
P=/sys/fs/cgroup/cgmem

start() {
  name=$1
  shift
  cgmem run --name "$name" --out "$name" --quiet "$@" > "$name.out" 2> "$name.err" &
  echo $! > "$name.pid"
}

dd if=/dev/zero of=cache-max.data bs=1M count=48 2> /dev/null
dd if=/dev/zero of=cache-high.data bs=1M count=48 2> /dev/null
sync
echo 3 > /proc/sys/vm/drop_caches

# throttled: anonymous memory past memory.high, nothing to reclaim.
start throttled --high $H --cap 120 -- --target 40M
# at_max: page cache read past memory.max (no kill: the cache is reclaimed).
start cachemax --max $M --cap 120 -- --target 40M --file cache-max.data --file-size 48M --churn 100000
# reclaiming: page cache past memory.high (reclaimed, no sleep).
start cachehigh --high $H --cap 120 -- --target 40M --file cache-high.data --file-size 48M --churn 100000
# thrashing: its own code charged to it, reclaimed and read back (the study's
# own-code run; under memory.high, which never kills, it goes on thrashing).
start thrash --high $H --cap 120 -- --target 40M --own-code
# ok: a cgroup with nothing in it.
mkdir $P/idle

sleep 20
echo "watch-vm: states reached at uptime $(cut -d' ' -f1 /proc/uptime)" >&2
cgmem watch --snapshot snap --interval 2s > snap.out 2> snap.err
echo $? > snap.status

cgmem watch --json --count 5 --interval 2s > watch.jsonl 2> watch.err &
watcher=$!
sleep 1
# oom_killed: anonymous memory past memory.max (8 MiB, so it gets there
# quickly on a busy emulated CPU), killed while watch runs.
start killed --max 8M --cap 20 -- --target 12M
wait $watcher
echo $? > watch.status
cgmem top --once --interval 1s > top.txt 2> top.err
echo $? > top.status
dmesg > dmesg.txt

for name in throttled cachemax cachehigh thrash killed; do kill -INT "$(cat $name.pid)" 2> /dev/null; done
for name in throttled cachemax cachehigh thrash killed; do wait "$(cat $name.pid)" 2> /dev/null; done
rmdir $P/idle
rm -f cache-max.data cache-high.data
exit 0
