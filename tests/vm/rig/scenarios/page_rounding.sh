# A limit that is not a multiple of the page size reads back rounded down to
# one: 30198988 -> 30195712 (7372 pages of 4096 bytes).
cg=$(new_cgroup page_rounding)
echo 30198988 > "$cg/memory.high"
cat "$cg/memory.high" > memory.high
echo 30198988 > "$cg/memory.max"
cat "$cg/memory.max" > memory.max
remove_cgroup "$cg"
