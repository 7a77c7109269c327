#!/usr/bin/env bash
# The README's main command: installs what cgmem needs, builds it (and the
# static binary the VM guest runs), runs the quick study matrix
# (examples/quick.toml: natively where the host has a usable cgroup v2
# memory controller, else in cgmem's VM), writes the report, and prints
# where it is.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake -S . -B build/static -G Ninja -DCMAKE_BUILD_TYPE=Release -DCGMEM_STATIC=ON -DCGMEM_TESTS=OFF >/dev/null
cmake --build build/release -j "$(nproc)" --target cgmem
cmake --build build/static -j "$(nproc)" --target cgmem
cgmem=build/release/src/cli/cgmem
batch=batches/quick-$(date -u +%Y%m%dT%H%M%SZ)
"$cgmem" host
"$cgmem" matrix examples/quick.toml --out "$batch"
"$cgmem" report "$batch" --out "$batch/report"
echo
echo "main.sh: the quick study's runs are in $batch/"
echo "main.sh: its report is $batch/report/report.html (and summary.md, predict.md, report.json, plots/)"
