# The guest half of bench/guard_vs_kernel.sh (runs in the VM):
# CAP SHIFTS NEIGHBOUR INTERVAL [KILL_RULE]. KILL_RULE "no" leaves out the
# kill-rule run, as the kernel test (tests/kernel/throttle/run.sh) does.
CAP=$1
SHIFTS=$2
NEIGHBOUR=$3
INTERVAL=$4
KILL_RULE=${5:-yes}
G=/sys/fs/cgroup/cgmem/g
mkdir -p $G
echo +memory > $G/cgroup.subtree_control

leak() {  # NAME [cgmem run flags]: the study's leak under both limits, next to a neighbour
  name=$1
  shift
  cgmem run --name "$name" --parent $G --out "$name" --quiet --max 32M --high 30198988 --neighbour "$NEIGHBOUR" \
    --cap "$CAP" "$@" -- --target 48M > "$name.out" 2> "$name.err"
  echo "$name: $(cat "$name/outcome.json" 2> /dev/null | tr -d '\n' | cut -c1-160)" >&2
}

guarded() {  # NAME POLICY-RULE-LINES [cgmem run flags]: the leak with a guard on it
  name=$1
  rule=$2
  shift 2
  printf '[[rules]]\nname = "%s"\nmatch = "^/%s$"\n%s\n' "$name" "$name" "$rule" > "$name.toml"
  cgmem guard --policy "$name.toml" --root $G --act --json --interval "$INTERVAL" > "$name.guard.jsonl" 2> "$name.guard.err" &
  guard=$!
  leak "$name" "$@"
  kill -TERM $guard
  wait $guard
}

# The crawl: k0 below is the same run (memory.high.throttle = 0) on the patched kernel.
[ -n "$SHIFTS" ] || leak crawl
[ "$KILL_RULE" = no ] || guarded kill 'action = "kill"
throttled_for = "30s"'
for s in $SHIFTS; do
  leak "k$s" --high-throttle "$s"
  guarded "g$s" "action = \"emulate-shift\"
shift = $s" --high-throttle 0
done
exit 0
