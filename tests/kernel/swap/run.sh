# Swap and zswap on cgmem's kernel (one stock slot), in one boot with a
# 96 MiB swap file on the run disk and zswap in front of it (`cgmem vm
# --swap 96M --zswap`; tests/kernel/CMakeLists.txt). Checks:
# tests/kernel/swap_vm_test.cpp.
#
#   over-max         memory.max 16M, 24M of anonymous memory, swap.max
#                    unset: the excess goes to swap, no OOM kill
#   over-max-swap0   the same with memory.swap.max 0: killed, as with no swap
#   over-max-swap4   memory.swap.max 4M: killed once 4M are in swap
#   swap-high        memory.max 8M, memory.swap.high 16M, 26M of memory:
#                    throttled by the swap term alone (memory.high unset),
#                    traced (cgmem run --trace): each penalty the kernel
#                    computed, with the pages it charged for
#   over-max-disk    over-max with zswap turned off: the pages go to the disk
run() {
  name=$1
  shift
  cgmem run --name "$name" --out "$name" --quiet "$@" > "$name.out" 2> "$name.err"
  echo $? > "$name.status"
  echo "swap: $name: exit $(cat "$name.status") at uptime $(cut -d' ' -f1 /proc/uptime) s" >&2
}

cgmem host --json > host-zswap.json
run over-max --max 16M --cap 40 -- --target 24M --churn 20
run over-max-swap0 --max 16M --swap-max 0 --cap 40 -- --target 24M --churn 20
run over-max-swap4 --max 16M --swap-max 4M --cap 40 -- --target 24M --churn 20
run swap-high --max 8M --swap-high 16M --cap 40 --trace -- --target 26M --churn 0
echo 0 > /sys/module/zswap/parameters/enabled
cgmem host --json > host-disk.json
run over-max-disk --max 16M --cap 40 -- --target 24M --churn 20
exit 0
