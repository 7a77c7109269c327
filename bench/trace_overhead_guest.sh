# The guest half of bench/trace_overhead.sh: REPS rounds, each the claims
# batch's anon-over-both (memory.high 28.8 MiB and memory.max 32 MiB: killed
# after a per-batch climb) and anon-over-nb-high (memory.high beside a
# 100 ms neighbour: one sleep per page), each once plain and once with
# --trace, the order alternating by round.
REPS=${1:-5}
H=30195712
run() {
  name=$1
  shift
  cgmem run --name "$name" --out "$name" --quiet --cpu 0 --sampler-cpu 1 --interval 100ms --high $H "$@" \
    > "$name.out" 2> "$name.err"
  echo "trace_overhead: $name exit $? at uptime $(cut -d' ' -f1 /proc/uptime) s" >&2
}
i=1
while [ "$i" -le "$REPS" ]; do
  if [ $((i % 2)) -eq 1 ]; then order="plain trace"; else order="trace plain"; fi
  for mode in $order; do
    flag=""
    [ "$mode" = trace ] && flag=--trace
    run "both-$mode-$i" --cap 20s --max 32M $flag -- --target 40M --churn 200
    run "nb-$mode-$i" --cap 20s --neighbour 100ms $flag -- --target 40M --churn 200
  done
  i=$((i + 1))
done
