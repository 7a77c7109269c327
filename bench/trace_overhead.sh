#!/bin/sh
# What `cgmem run --trace` changes in what it traces: the claims batch's
# anon-over-both and anon-over-nb-high runs, REPS times each with and
# without --trace, alternating, in one boot of cgmem's kernel
# (hz1000-throttle-slots-trace, one stock slot). Prints, per config and
# mode, the median over the rounds of: the time to the OOM kill, the
# median sleeps per throttled op (memory.events high rise / 17), and the
# median throttled op's latency. About 12 minutes under TCG at REPS=5.
# Usage: bench/trace_overhead.sh [OUT]   (OUT: bench-out/trace-overhead)
# Environment: CGMEM (a cgmem with cgmem-static beside it, default
# build/release/src/cli/cgmem), REPS (default 5).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
CGMEM=${CGMEM:-build/release/src/cli/cgmem}
REPS=${REPS:-5}
OUT=${1:-bench-out/trace-overhead}
rm -rf "$OUT"
mkdir -p "$(dirname "$OUT")"
echo "trace_overhead: $REPS rounds, $(uptime)" >&2
"$CGMEM" vm --kernel hz1000-throttle-slots-trace --timeout 3600 --out "$OUT" \
  --script "$here/trace_overhead_guest.sh" -- "$REPS"
echo "trace_overhead: done, $(uptime)" >&2
python3 - "$OUT" "$REPS" <<'PY'
import json, os, statistics, sys
out, reps = sys.argv[1], int(sys.argv[2])

def run(name):
    d = os.path.join(out, name)
    try:
        o = json.load(open(os.path.join(d, "outcome.json")))
        ops = [json.loads(l) for l in open(os.path.join(d, "ops.jsonl")) if l.strip()]
    except (OSError, ValueError):
        return None
    slept = [op for op in ops if op["high_after"] - op["high_before"] >= 17]
    sleeps = [(op["high_after"] - op["high_before"]) // 17 for op in slept]
    return {"kill_s": o.get("time_to_kill_s"),
            "sleeps_per_op": statistics.median(sleeps) if sleeps else None,
            "op_ms": statistics.median(op["lat_ns"] / 1e6 for op in slept) if slept else None,
            "lost": (o.get("trace") or {}).get("lost")}

def median(values):
    values = [v for v in values if v is not None]
    return f"{statistics.median(values):.3g}" if values else "-"

print("| config | mode | time to kill (s) | sleeps per throttled op | throttled op (ms) | lost events |")
print("|---|---|---:|---:|---:|---:|")
for config in ("both", "nb"):
    for mode in ("plain", "trace"):
        rows = [r for r in (run(f"{config}-{mode}-{i}") for i in range(1, reps + 1)) if r]
        print(f"| {config} | {mode} | {median(r['kill_s'] for r in rows)} | {median(r['sleeps_per_op'] for r in rows)} "
              f"| {median(r['op_ms'] for r in rows)} | {median(r['lost'] for r in rows) if mode == 'trace' else '-'} |")
        print(f"|   | each | {', '.join(str(r['kill_s'] and round(r['kill_s'], 2)) for r in rows)} | "
              f"{', '.join(str(r['sleeps_per_op']) for r in rows)} | | |")
PY
