// What the report keeps of one line of ops.jsonl (docs/run-format.md).
#pragma once

#include <cstdint>

#include "run_format/run_format.h"

namespace cgmem::report {

// One line of ops.jsonl, as the report uses it: 64 bytes, so a million of
// them cost 64 MB. The scanner still checks the keys it does not keep (op,
// pid, cpu, held_bytes, max_before).
struct Op {
  int64_t t_ns = 0;
  int64_t lat_ns = 0;
  uint64_t current_before = 0, current_after = 0;
  uint64_t high_before = 0, high_after = 0;
  uint64_t max_after = 0;
  run_format::Phase phase = run_format::Phase::other;

  int64_t end_ns() const { return t_ns + lat_ns; }  // when the op returned
  // memory.events high's rise over the op (17 per sleep, one per reclaim
  // pass that did not sleep).
  uint64_t high_rise() const { return high_after - high_before; }
};
static_assert(sizeof(Op) == 64);

}  // namespace cgmem::report
