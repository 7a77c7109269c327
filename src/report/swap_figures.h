// What a run's samples and op lines show of its swap, for the claims on
// swap (claims_swap.cpp): how much it swapped, where memory.current stayed,
// how much of the time it slept in the throttle, how long it stalled while
// pages came back from swap, and how fast its churn ran. Each figure is
// empty when the run has nothing to give it from (docs/report.md, "The rows
// swap brings", says which file each one reads).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "report/run.h"

namespace cgmem::report {

// The largest memory.swap.current seen: samples' memory_swap_current and
// the ops' swap_after. Empty when the run has neither.
std::optional<uint64_t> peak_swap(const Run& run);

// memory.swap.events (high, max, fail) at the last sample that has it.
std::map<std::string, uint64_t> last_swap_events(const Run& run);

// The median memory.current over the samples of the run's last half (by
// time) that still saw the workload: where usage was held.
std::optional<double> held_usage(const Run& run);

// The share of (sample, process) pairs asleep in the throttle: state D with
// wchan mem_cgroup_handle_over_high (its schedule_timeout_killable sleep).
std::optional<double> throttle_asleep_share(const Run& run);

// PSI memory some between samples, split by whether pages came back from
// swap between them: memory.swap.current fell, or memory.stat's
// workingset_refault_anon (or, where memory.stat has it, pswpin: not in
// 6.12) rose. swap_read_folio() (mm/page_io.c, 6.12) counts a refault's
// swap-in as a memory stall.
struct SwapInStall {
  uint64_t intervals = 0;           // sample intervals with a swap-in
  double in_s = 0, stalled_in_s = 0;  // their length, PSI some's rise over them
  double rest_s = 0, stalled_rest_s = 0;
  std::optional<double> share_in() const { return in_s > 0 ? std::optional(stalled_in_s / in_s) : std::nullopt; }
  std::optional<double> share_rest() const {
    return rest_s > 0 ? std::optional(stalled_rest_s / rest_s) : std::nullopt;
  }
};
// Empty without two samples with memory.pressure.
std::optional<SwapInStall> swap_in_stall(const Run& run);

// PSI memory some's rise over the samples' span, as a share of it.
std::optional<double> stall_share(const Run& run);

// The churn phase's ops: how many, over how long (the first's start to the
// last's end), per second and in bytes (workload.chunk_bytes each) per second.
struct Throughput {
  uint64_t ops = 0;
  double seconds = 0, ops_per_s = 0, bytes_per_s = 0;
};
// Empty with fewer than two churn ops.
std::optional<Throughput> churn_throughput(const Run& run);

}  // namespace cgmem::report
