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
# (-DCGMEM_UNIT_TESTS=OFF leaves them out of build/release). The release
# build comes first; then the real-kernel tests run, with the sanitize build
# and fuzzing beside them at idle priority; the unit tests run last.
# Environment: CGMEM_SKIP_VM=1 leaves out the tests labelled "vm" and
# "kernel"; CGMEM_SKIP_KERNEL=1 only those labelled "kernel" (they build the
# patched kernel once, about 6 minutes on 2 idle cores, then find it cached).
set -euo pipefail
cd "$(dirname "$0")/.."

jobs=$(nproc)
fuzz_seconds=${CGMEM_FUZZ_SECONDS:-10}
# Each library and test program compiles as a few large files, not one per
# source: the headers' templates are instantiated and compiled once per batch.
unity=(-DCMAKE_UNITY_BUILD=ON -DCMAKE_UNITY_BUILD_BATCH_SIZE=16)

configure() {  # DIR [cmake args...]
  local dir=$1; shift
  cmake -S . -B "$dir" -G Ninja "$@" >/dev/null
}

step() { printf '\n== %s (at %d s)\n' "$*" "$SECONDS"; }

step "install dependencies"
bash scripts/install-deps.sh

step "configure and build: release (g++)"
configure build/release -DCMAKE_BUILD_TYPE=Release -DCGMEM_TESTS=ON -DCGMEM_UNIT_TESTS=OFF "${unity[@]}"
cmake --build build/release -j "$jobs"

# The sanitizer half's build and fuzzing: CPU only, and nothing in them
# times anything, so they can run beside the real-kernel tests. The unit
# tests run apart: some time their own processes against a clock.
sanitized_build_and_fuzz() {
  step "configure and build: sanitize (clang: ASan, UBSan, libFuzzer)"
  # Line tables are all the sanitizers' reports need; with full debug info
  # build/sanitize held 2.0 GB, written while the guests run.
  configure build/sanitize -DCMAKE_BUILD_TYPE=Debug -DCGMEM_FUZZ=ON -DCGMEM_TESTS=ON \
    -DCMAKE_C_COMPILER=clang-16 -DCMAKE_CXX_COMPILER=clang++-16 "${unity[@]}" \
    -DCMAKE_C_FLAGS_DEBUG=-gline-tables-only -DCMAKE_CXX_FLAGS_DEBUG=-gline-tables-only
  cmake --build build/sanitize -j "$jobs"

  [[ -d build/sanitize/fuzz ]] || return 0
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
}

unit_tests() {
  step "unit tests under ASan+UBSan"
  ctest --test-dir build/sanitize -L unit --output-on-failure -j "$jobs"
}

if [[ ${CGMEM_SKIP_VM:-0} == 1 ]]; then
  sanitized_build_and_fuzz
  unit_tests
else
  # The real-kernel tests spend most of their time waiting on throttled
  # guests, so the sanitizer build and fuzzing run meanwhile under
  # SCHED_IDLE: they get only the CPU time no guest (nor the kernel build)
  # wants, and the guests keep the timing the tests check. Their output
  # follows the guests'. The unit tests run last, at normal priority: at
  # idle priority beside the guests, a guard test's shell loop fell behind
  # its 50 ms schedule and the guard saw an interval without a rise.
  sanitize_log=$(mktemp)
  set -m  # the background half in its own process group, to stop it whole
  (
    # SCHED_IDLE where allowed, else the lowest nice value.
    chrt --idle -p 0 "$BASHPID" >/dev/null 2>&1 || renice -n 19 -p "$BASHPID" >/dev/null
    sanitized_build_and_fuzz
  ) >"$sanitize_log" 2>&1 &
  sanitize_pid=$!
  set +m
  trap 'kill -- -"$sanitize_pid" 2>/dev/null || true; rm -f "$sanitize_log"' EXIT

  step "real-kernel tests in the VM (release), the sanitize build and fuzzing beside them at idle priority"
  labels=()
  [[ ${CGMEM_SKIP_KERNEL:-0} == 1 ]] && labels=(-LE kernel)
  vm_status=0
  ctest --test-dir build/release "${labels[@]}" --output-on-failure -j "$jobs" || vm_status=$?

  sanitize_status=0
  wait "$sanitize_pid" || sanitize_status=$?
  cat "$sanitize_log"
  ((vm_status == 0)) || { echo "test.sh: real-kernel tests failed" >&2; exit "$vm_status"; }
  ((sanitize_status == 0)) || { echo "test.sh: the sanitize build or fuzzing failed" >&2; exit "$sanitize_status"; }
  unit_tests
fi

echo
echo "test.sh: all configurations built and every test passed in $SECONDS s"
