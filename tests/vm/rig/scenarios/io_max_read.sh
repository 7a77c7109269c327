# io.max is real on the run disk: reading 16 MiB from /dev/vda with
# rbps = 4 MiB/s takes about 4 s (page cache dropped first, so every byte
# comes from the disk).
dev=$(cat /sys/block/vda/dev)
echo "$dev" > device
dd if=/dev/urandom of=/vm/io_max_read.bin bs=1M count=16 2>/dev/null
sync
echo 3 > /proc/sys/vm/drop_caches
cg=$(new_cgroup io_max_read)
echo "$dev rbps=4194304" > "$cg/io.max"
cat "$cg/io.max" > io.max
start=$(cut -d' ' -f1 /proc/uptime)
run_in "$cg" dd if=/vm/io_max_read.bin of=/dev/null bs=1M 2>/dev/null
end=$(cut -d' ' -f1 /proc/uptime)
echo "$start $end" | awk '{printf "%.2f\n", $2 - $1}' > read_seconds
cat "$cg/io.stat" > io.stat
remove_cgroup "$cg"
rm -f /vm/io_max_read.bin
