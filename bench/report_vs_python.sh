#!/usr/bin/env bash
# `cgmem report` against a plain Python json-lines parse of the same file,
# on a run directory with 1 million op lines (bench/make_run.py). Prints the
# best of N wall-clock times of each and the ratio.
#   bash bench/report_vs_python.sh [CGMEM] [OPS] [REPEATS]
set -euo pipefail
cd "$(dirname "$0")/.."
cgmem=${1:-build/release/src/cli/cgmem}
ops=${2:-1000000}
repeats=${3:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Unthrottled 0.25 ms ops under a memory.high far above their usage: the op
# lines are full-size, the samples few (one per 100 ms of run time).
python3 bench/make_run.py "$work/run" --ops "$ops" --high 17179869184 --target $((1 << 30)) >/dev/null
echo "run: $(wc -l <"$work/run/ops.jsonl") op lines, $(du -m "$work/run/ops.jsonl" | cut -f1) MB; $(wc -l <"$work/run/samples.jsonl") samples"

best() {  # COMMAND...: the shortest wall time of $repeats runs, in seconds
  local best=""
  for _ in $(seq "$repeats"); do
    local start end t
    start=$(date +%s.%N)
    "$@" >/dev/null
    end=$(date +%s.%N)
    t=$(echo "$end - $start" | bc -l)
    if [[ -z $best ]] || (($(echo "$t < $best" | bc -l))); then best=$t; fi
  done
  printf '%.3f' "$best"
}

cat >"$work/parse.py" <<'PY'
import json, sys
n = 0
with open(sys.argv[1]) as f:
    for line in f:
        json.loads(line)
        n += 1
print(n)
PY

cat "$work/run/ops.jsonl" >/dev/null  # both start from the page cache
t_all=$(best "$cgmem" report "$work/run" --out "$work/report")
t_json=$(best "$cgmem" report "$work/run" --out "$work/report-json" --format json)
t_py=$(best python3 "$work/parse.py" "$work/run/ops.jsonl")
echo "cgmem report (md, json, html, plots): ${t_all} s"
echo "cgmem report --format json:           ${t_json} s"
echo "python3 json.loads per line:          ${t_py} s"
echo "ratio (python / cgmem report):        $(echo "$t_py / $t_all" | bc -l | xargs printf '%.1f')x"
echo "ratio (python / --format json):       $(echo "$t_py / $t_json" | bc -l | xargs printf '%.1f')x"
