#!/bin/sh
# The guard against the kernel, at the study's scale (memory.max 32 MiB,
# memory.high 90% of it, the leak next to a 100 ms neighbour: one sleep per
# page), on cgmem's HZ=1000 kernel with the RFC's patch (cgmem kernel build
# --hz 1000 --patch memory-high-throttle). One VM boot runs, in order:
#   crawl    no guard: the kernel's own OOM kill after the crawl (k0 when S = 0 is run)
#   kill     the guard's `kill` rule (throttled_for = 30s), memory.high.throttle = 0
#   kS       the patched kernel with memory.high.throttle = S, no guard
#   gS       the guard's `emulate-shift S` on the same kernel with memory.high.throttle = 0
# for each S in SHIFTS, and prints the table (time from start to the kill, s).
# Long (about 15 minutes under TCG): run it once and quote it (docs/guard.md).
# The kernel test (tests/kernel/throttle/run.sh) runs the guest half at
# S = 2 and 4 only. Usage:
#   bench/guard_vs_kernel.sh [OUT]        # OUT: bench-out/guard-vs-kernel
# Environment: CGMEM (a static cgmem, default build/release/src/cli/cgmem-static),
# KERNEL (default hz1000-throttle; "" for the pinned Debian HZ=250 kernel,
# which has no memory.high.throttle: then only crawl and kill run), SHIFTS
# (default "0 2 4 6 8"), CAP (per run, default 400 s), NEIGHBOUR (its period,
# default 100ms as in the study; 10ms keeps both kernels at one sleep per
# page), INTERVAL (the guard's, default 100ms).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
CGMEM=${CGMEM:-build/release/src/cli/cgmem-static}
KERNEL=${KERNEL-hz1000-throttle}
SHIFTS=${SHIFTS:-0 2 4 6 8}
CAP=${CAP:-400}
NEIGHBOUR=${NEIGHBOUR:-100ms}
INTERVAL=${INTERVAL:-100ms}
OUT=${1:-bench-out/guard-vs-kernel}
[ -n "$KERNEL" ] || SHIFTS=""
rm -rf "$OUT"
mkdir -p "$(dirname "$OUT")"
echo "guard_vs_kernel: kernel ${KERNEL:-debian}, shifts '${SHIFTS}', neighbour $NEIGHBOUR, interval $INTERVAL, $(uptime)" >&2
"$CGMEM" vm ${KERNEL:+--kernel "$KERNEL"} --timeout 5400 --out "$OUT" \
  --script "$here/guard_vs_kernel_guest.sh" -- "$CAP" "$SHIFTS" "$NEIGHBOUR" "$INTERVAL"
python3 - "$OUT" "$SHIFTS" <<'PY'
import json, os, sys
out, shifts = sys.argv[1], sys.argv[2].split()

def outcome(name):
    try:
        with open(os.path.join(out, name, "outcome.json")) as f:
            o = json.load(f)
    except OSError:
        return None, "missing"
    how = o["status"] if o.get("signal") != 9 or o["status"] == "oom_killed" else "guard kill"
    return (o["duration_s"] if o.get("signal") == 9 else None), how

def cell(v):
    return "-" if v is None else f"{v:.1f}"

def over_high(name):  # seconds from the first op that ended over memory.high to the kill
    try:
        with open(os.path.join(out, name, "meta.json")) as f:
            meta = json.load(f)
        with open(os.path.join(out, name, "ops.jsonl")) as f:
            ops = [json.loads(line) for line in f]
        t, _ = outcome(name)
        first = next(o for o in ops if o["current_after"] > meta["limits"]["high"])
    except (OSError, KeyError, StopIteration):
        return None
    return None if t is None else t - (first["t_ns"] - meta["started_mono_ns"]) / 1e9

def ratio(g, k):
    return f"{g / k:.2f}" if k and g else "-"

crawl, how_c = outcome("crawl") if not shifts else outcome("k0")
kill, how_k = outcome("kill")
print(f"| run | time to the kill (s) | by |\n|---|---|---|")
print(f"| crawl (no guard) | {cell(crawl)} | {how_c} |")
print(f"| guard kill rule, throttled_for = 30s | {cell(kill)} | {how_k} |")
if shifts:
    print("\n| S | patched kernel, memory.high.throttle = S (s) | guard emulate-shift S, throttle 0 (s) | guard / kernel "
          "| over memory.high: kernel (s) | guard (s) | guard / kernel |")
    print("|---|---|---|---|---|---|---|")
    for s in shifts:
        k, how_ks = outcome(f"k{s}")
        g, how_g = outcome(f"g{s}")
        ko, go = over_high(f"k{s}"), over_high(f"g{s}")
        print(f"| {s} | {cell(k)} ({how_ks}) | {cell(g)} ({how_g}) | {ratio(g, k)} | {cell(ko)} | {cell(go)} | {ratio(go, ko)} |")
PY
