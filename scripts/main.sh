#!/usr/bin/env bash
# The README's main command: installs what cgmem needs, builds cgmem-static
# (it runs here and is the binary the VM guest runs), runs the claims
# batch (examples/claims.toml: natively where the host has a usable cgroup
# v2 memory controller, else in cgmem's VM), writes the report, and ends
# with the table of the study's claims, checked.
set -euo pipefail
cd "$(dirname "$0")/.."
spec=${CGMEM_MAIN_SPEC:-examples/claims.toml}
start=$SECONDS
step() { echo "main.sh: $*"; }

step "1/4 packages (scripts/install-deps.sh --main)"
bash scripts/install-deps.sh --main
installed=$SECONDS

step "2/4 building cgmem-static (build/release)"
# A unity build (a few large files per library): half the compile time.
cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=Release -DCGMEM_TESTS=OFF \
  -DCMAKE_UNITY_BUILD=ON -DCMAKE_UNITY_BUILD_BATCH_SIZE=16 >/dev/null
cmake --build build/release -j "$(nproc)" --target cgmem-static
built=$SECONDS
cgmem=build/release/src/cli/cgmem-static

name=$(basename "$spec" .toml)
batch=batches/$name-$(date -u +%Y%m%dT%H%M%SZ)
step "3/4 the batch $spec into $batch"
"$cgmem" host
# A batch that stopped part-way still gets its report (and then its exit code).
status=0
"$cgmem" matrix "$spec" --out "$batch" || status=$?
ran=$SECONDS

step "4/4 the report"
echo "main.sh: install $((installed - start)) s, build $((built - installed)) s, batch $((ran - built)) s"
echo "main.sh: the runs are in $batch/; the report is $batch/report/report.html (claims.md, summary.md, predict.md, report.json, plots/)"
"$cgmem" report "$batch" --out "$batch/report"
exit "$status"
