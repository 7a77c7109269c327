// What the report keeps of one line of ops.jsonl (docs/run-format.md).
#pragma once

#include <algorithm>
#include <cstdint>

#include "run_format/run_format.h"

namespace cgmem::report {

// One line of ops.jsonl, as the report uses it: 64 bytes, so a million of
// them cost 64 MB. The scanner still checks the keys it does not keep (op,
// cpu, held_bytes, max_before). The swap counters are not here but in
// OpSwap below, kept only for a run that wrote them.
struct Op {
  int64_t t_ns = 0;
  int64_t lat_ns = 0;
  uint64_t current_before = 0, current_after = 0;
  uint64_t high_before = 0, high_after = 0;
  uint64_t max_after = 0;
  run_format::Phase phase = run_format::Phase::other;
  int32_t pid = 0;  // the workload process that ran the op (0 when the line has none)

  int64_t end_ns() const { return t_ns + lat_ns; }  // when the op returned
  // memory.events high's rise over the op (17 per sleep, one per reclaim
  // pass that did not sleep).
  uint64_t high_rise() const { return high_after - high_before; }
};
static_assert(sizeof(Op) == 64);

// An op's swap counters (ops.jsonl's swap_before, swap_after,
// swap_high_before, swap_high_after, written where memory.swap.current and
// memory.swap.events exist). Not in Op: they are kept beside the ops only
// in a run that wrote them (OpList::has_swap), so a run without swap costs
// nothing more and a run with it 32 bytes more per op (32 MB a million).
struct OpSwap {
  uint64_t before = 0, after = 0;            // memory.swap.current, bytes
  uint64_t high_before = 0, high_after = 0;  // memory.swap.events high
  // One per reclaim pass over memory.swap.high (swap_find_max_overage); 0
  // for counters that went back.
  uint64_t high_rise() const { return high_after > high_before ? high_after - high_before : 0; }
};
static_assert(sizeof(OpSwap) == 32);

// The pages an op wrote: one chunk of the workload's, except after the
// workload set its own memory.high (phase own_high), one 4 KiB page.
inline uint64_t op_pages(const Op& op, uint64_t chunk_bytes, uint64_t page_size) {
  if (op.phase == run_format::Phase::own_high) return 1;
  return page_size ? std::max<uint64_t>(1, chunk_bytes / page_size) : 1;
}

}  // namespace cgmem::report
