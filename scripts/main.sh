#!/usr/bin/env bash
# The README's main command: installs what cgmem needs, builds it, and runs
# its main job. Until the lab lands that job is `cgmem host`: what this
# machine's kernel and cgroups can do.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build/release -j "$(nproc)" --target cgmem
exec build/release/src/cli/cgmem host
