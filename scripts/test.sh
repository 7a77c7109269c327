#!/usr/bin/env bash
# Installs what it needs, builds both configurations and runs every test:
# the README's test command and what .ci/run calls. Configurations:
#   build/release   g++, Release: cgmem, cgmem-static and the guest's test
#                   programs (what the VM guest runs), and the real-kernel
#                   tests (labels vm and kernel), run through the VM
#   build/sanitize  clang, ASan+UBSan with libFuzzer's coverage: the unit
#                   tests (label unit), and each fuzz target run for
#                   $CGMEM_FUZZ_SECONDS
# Each test file compiles once: the unit tests only in build/sanitize
# (-DCGMEM_UNIT_TESTS=OFF leaves them out of build/release).
# Environment: CGMEM_SKIP_VM=1 leaves out the tests labelled "vm" and
# "kernel"; CGMEM_SKIP_KERNEL=1 only those labelled "kernel" (they build the
# patched kernel once, about 6 minutes on 2 idle cores, then find it cached).
set -euo pipefail
cd "$(dirname "$0")/.."

jobs=$(nproc)
fuzz_seconds=${CGMEM_FUZZ_SECONDS:-10}

configure() {  # DIR [cmake args...]
  local dir=$1; shift
  cmake -S . -B "$dir" -G Ninja "$@" >/dev/null
}

step() { printf '\n== %s\n' "$*"; }

step "install dependencies"
bash scripts/install-deps.sh

step "configure and build: release (g++)"
configure build/release -DCMAKE_BUILD_TYPE=Release -DCGMEM_TESTS=ON -DCGMEM_UNIT_TESTS=OFF
cmake --build build/release -j "$jobs"

step "configure and build: sanitize (clang: ASan, UBSan, libFuzzer)"
configure build/sanitize -DCMAKE_BUILD_TYPE=Debug -DCGMEM_FUZZ=ON -DCGMEM_TESTS=ON \
  -DCMAKE_C_COMPILER=clang-16 -DCMAKE_CXX_COMPILER=clang++-16
cmake --build build/sanitize -j "$jobs"

step "unit tests under ASan+UBSan"
ctest --test-dir build/sanitize -L unit --output-on-failure -j "$jobs"

if [[ ${CGMEM_SKIP_VM:-0} != 1 ]]; then
  step "real-kernel tests in the VM (release)"
  labels=()
  [[ ${CGMEM_SKIP_KERNEL:-0} == 1 ]] && labels=(-LE kernel)
  ctest --test-dir build/release "${labels[@]}" --output-on-failure -j "$jobs"
fi

if [[ -d build/sanitize/fuzz ]]; then
  step "fuzz each parser for ${fuzz_seconds}s, $jobs at a time"
  # One target: fuzz a copy of its checked-in seeds (so fuzzing never dirties
  # the tree), print its last lines; a crash fails the run.
  fuzz_one() {
    local target=$1 seconds=$2 name corpus seeds out status
    name=$(basename "$target")
    corpus=$(mktemp -d)
    seeds=fuzz/corpus/${name#fuzz_}
    [[ -d $seeds ]] && cp -r "$seeds"/. "$corpus"/
    out=$("$target" -max_total_time="$seconds" -print_final_stats=0 -artifact_prefix="$corpus/" "$corpus" 2>&1)
    status=$?
    printf -- '-- %s\n%s\n' "$name" "$(tail -n 2 <<<"$out")"
    if ((status != 0)); then
      printf '%s\n' "$out" | tail -n 40
      cp "$corpus"/crash-* "$corpus"/leak-* "$corpus"/timeout-* . 2>/dev/null
    fi
    rm -rf "$corpus"
    return "$status"
  }
  export -f fuzz_one
  find build/sanitize/fuzz -maxdepth 1 -name 'fuzz_*' -type f -executable -print0 | sort -z |
    xargs -0 -P "$jobs" -I{} bash -c 'fuzz_one "$1" "$2"' _ {} "$fuzz_seconds"
fi
echo
echo "test.sh: all configurations built and every test passed"
