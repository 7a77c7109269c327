#!/bin/busybox sh
# PID 1 of the cgmem VM guest (busybox ash). cgmem embeds this file in the
# initramfs it builds; see docs/vm.md. Lines starting "cgmem-vm:" go to the
# console (ttyS0), which the host saves as DIR.console.log and watches for
# "cgmem-vm: running" (boot time) and "cgmem-vm: error:" (guest failures).
#
# The run disk (/dev/vda, ext4, made by the host with mkfs.ext4 -d):
#   /cgmem-vm/config       shell variables: SWAP_BYTES, SWAP_KIND, ZSWAP, CAP_BYTES, HOST_NAME
#   /cgmem-vm/command.sh   what to run, already shell-quoted by the host
#   /in/                   --file and --script inputs (on PATH)
#   /tree/, /libs/         --tree directories and the libraries they need (vm/tree_files.h),
#   /cgmem-vm/trees, links   mounted and linked by the lines listed there
#   /out/                  the working directory; comes back as --out DIR
# and what this script writes back to /cgmem-vm/: stdout, exit_code, guest.env.

/bin/busybox mkdir -p /proc /sys /dev /tmp /run /vm /boot
/bin/busybox --install -s /bin
# /usr/local/bin: --program files, with their libraries in /lib/x86_64-linux-gnu.
export PATH=/bin:/usr/local/bin:/vm/in
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs tmpfs /tmp
# tracefs, where the kernel has it (cgmem run --trace)
[ -d /sys/kernel/tracing ] && mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null

say() { echo "cgmem-vm: $*"; }
die() {
  say "error: $*"
  reboot -f
  sleep 10
}

# Modules in dependency order (the host wrote the order).
if [ -f /lib/modules/order ]; then
  while read -r m; do
    insmod "/lib/modules/$m.ko" || say "insmod $m failed"
  done < /lib/modules/order
fi

# Loopback up: a server and its load generator talk over it (there is no
# other interface). busybox ip, else ifconfig; a kernel without CONFIG_NET has neither to offer.
if [ -d /sys/class/net/lo ]; then
  ip link set lo up 2>/dev/null || ifconfig lo 127.0.0.1 up 2>/dev/null || say "cannot bring loopback up"
fi
# "localhost" resolves through /etc/hosts (glibc's files lookup, static binaries too).
mkdir -p /etc
printf '127.0.0.1 localhost\n::1 localhost ip6-localhost ip6-loopback\n' > /etc/hosts
printf 'hosts: files\npasswd: files\ngroup: files\n' > /etc/nsswitch.conf
# root, and an unprivileged user for programs that refuse to run as root
# (PostgreSQL): `su cgmem -s /bin/sh -c CMD` in a workload's command.
printf 'root:x:0:0:root:/root:/bin/sh\ncgmem:x:1000:1000:cgmem guest user:/tmp:/bin/sh\n' > /etc/passwd
printf 'root:x:0:\ncgmem:x:1000:\n' > /etc/group

# devtmpfs makes /dev/vda once the virtio disk is probed.
i=0
while [ ! -b /dev/vda ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
if [ ! -b /dev/vda ]; then
  die "no /dev/vda: this kernel has no virtio_blk (build it in: CONFIG_VIRTIO_BLK=y, CONFIG_VIRTIO_PCI=y)"
fi
mount -t ext4 /dev/vda /vm || die "cannot mount /dev/vda (ext4) on /vm: does the kernel have CONFIG_EXT4_FS=y?"
. /vm/cgmem-vm/config
# The host's name (HOST_NAME): a shard's batch says which machine ran it.
[ -n "$HOST_NAME" ] && { hostname "$HOST_NAME" 2>/dev/null || say "cannot set the hostname"; }
# /tmp on the run disk, over the early tmpfs: without swap a tmpfs's pages
# cannot be reclaimed, so a program's temporary files would stay charged as
# shmem; on ext4 they are page cache the kernel can reclaim, as on a real host.
mkdir -p /vm/tmp && chmod 1777 /vm/tmp && mount --bind /vm/tmp /tmp || die "cannot put /tmp on the run disk"
# --tree: each host directory at its own path, and the libraries its ELF
# files need where the loader looks (a --program's own copy comes first).
if [ -f /vm/cgmem-vm/trees ]; then
  while read -r tree; do
    mkdir -p "$tree" && mount --bind "/vm/tree$tree" "$tree" || die "cannot mount the tree $tree"
  done < /vm/cgmem-vm/trees
  while read -r link target; do
    [ -e "$link" ] || { mkdir -p "${link%/*}" && ln -s "$target" "$link"; } || die "cannot link $link"
  done < /vm/cgmem-vm/links
fi

# Networking only with --forward (a virtio NIC on QEMU's user network):
# loopback and 10.0.2.15, where the host's forwarded ports arrive.
if [ -e /sys/class/net/eth0 ]; then
  ip link set lo up && ip addr add 10.0.2.15/24 dev eth0 && ip link set eth0 up ||
    say "cannot bring up eth0 (10.0.2.15/24)"
fi

# cgroup v2 with the controllers cgmem uses, enabled down to /sys/fs/cgroup/cgmem,
# whose memory.max keeps runs below the VM's RAM.
mount -t cgroup2 none /sys/fs/cgroup || die "cannot mount cgroup2 on /sys/fs/cgroup"
for c in memory io cpu cpuset; do
  echo "+$c" > /sys/fs/cgroup/cgroup.subtree_control || say "cannot enable the $c controller"
done
mkdir -p /sys/fs/cgroup/cgmem
echo "$CAP_BYTES" > /sys/fs/cgroup/cgmem/memory.max || die "cannot write memory.max of /sys/fs/cgroup/cgmem"
for c in memory io cpu cpuset; do
  echo "+$c" > /sys/fs/cgroup/cgmem/cgroup.subtree_control 2>/dev/null
done
export CGMEM_CGROUP_PARENT=/sys/fs/cgroup/cgmem

# Swap only when asked (vm/swap.h): zram, or a swap file on the run disk
# (its I/O on /dev/vda, where io.max can cap it), with zswap in front of it
# when ZSWAP=1.
if [ "$SWAP_KIND" = auto ]; then
  SWAP_KIND=disk
  [ -e /sys/block/zram0 ] || [ -e /sys/class/zram-control ] && SWAP_KIND=zram
fi
case "$SWAP_KIND" in
  zram)
    [ -e /sys/block/zram0 ] || [ -e /sys/class/zram-control ] || die "this kernel has no zram (CONFIG_ZRAM)"
    echo "$SWAP_BYTES" > /sys/block/zram0/disksize && mkswap /dev/zram0 >/dev/null && swapon /dev/zram0 ||
      die "cannot set up zram swap of $SWAP_BYTES bytes"
    ;;
  disk)
    dd if=/dev/zero of=/vm/swapfile bs=1M count=$((SWAP_BYTES / 1048576)) 2>/dev/null &&
      chmod 600 /vm/swapfile && mkswap /vm/swapfile >/dev/null && swapon /vm/swapfile ||
      die "cannot set up a swap file of $SWAP_BYTES bytes"
    ;;
esac
zswap=/sys/module/zswap/parameters
if [ "$ZSWAP" = 1 ]; then
  [ -w $zswap/enabled ] || die "this kernel has no zswap (CONFIG_ZSWAP)"
  echo 1 > $zswap/enabled || die "cannot turn zswap on"
fi

# cgmem host reads the kernel's HZ from /boot/config-RELEASE when it is there.
release=$(uname -r)
[ -f /boot/config ] && mv /boot/config "/boot/config-$release"

{
  echo "kernel_release=$release"
  echo "thp_enabled=$(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)"
  echo "thp_defrag=$(cat /sys/kernel/mm/transparent_hugepage/defrag 2>/dev/null)"
  echo "cpus=$(grep -c ^processor /proc/cpuinfo)"
  echo "mem_total_kib=$(awk '/^MemTotal:/ {print $2}' /proc/meminfo)"
  echo "swap_total_kib=$(awk '/^SwapTotal:/ {print $2}' /proc/meminfo)"
  echo "swap_kind=$SWAP_KIND"
  echo "swappiness=$(cat /proc/sys/vm/swappiness 2>/dev/null)"
  if [ -r $zswap/enabled ]; then
    for p in enabled compressor zpool max_pool_percent accept_threshold_percent shrinker_enabled; do
      echo "zswap_$p=$(cat $zswap/$p 2>/dev/null)"
    done
  fi
  echo "cgroup_parent=$CGMEM_CGROUP_PARENT"
  echo "cgroup_parent_memory_max=$(cat /sys/fs/cgroup/cgmem/memory.max)"
  echo "psi=$([ -r /proc/pressure/memory ] && echo on || echo off)"
  lo=none
  [ -d /sys/class/net/lo ] && lo=down && ip link show lo 2>/dev/null | grep -q ',UP' && lo=up
  echo "loopback=$lo"
  echo "uptime_at_run=$(cut -d' ' -f1 /proc/uptime)"
} > /vm/cgmem-vm/guest.env

# The inner command: stdout to the disk (exact bytes), stderr live to ttyS1.
stty -F /dev/ttyS1 raw -echo 2>/dev/null
err=/dev/ttyS1
[ -c /dev/ttyS1 ] || err=/vm/cgmem-vm/stderr
mkdir -p /vm/out
cd /vm/out
say "running"
sh /vm/cgmem-vm/command.sh < /dev/null > /vm/cgmem-vm/stdout 2> "$err"
echo $? > /vm/cgmem-vm/exit_code
cd /
say "exit code $(cat /vm/cgmem-vm/exit_code)"
sync
umount /tmp 2>/dev/null
umount /vm || say "umount /vm failed; the disk may need fsck"
say "done"
reboot -f
