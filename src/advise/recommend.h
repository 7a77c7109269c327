// The limits `cgmem advise` recommends from a program's usage, and what the
// kernel's arithmetic (src/model) says they will do to it.
//
//   memory.max   the working set plus --headroom (25%), rounded up to a
//                page: the kill line. Always set: without swap,
//                memory.high alone never stops a leak (the study).
//   memory.high  the lowest value at least --high-margin (10%) above the
//                working set from which a runaway program, at one sleep per
//                page (the regime the study measured beside a neighbour),
//                climbs to memory.max within --crawl (60 s): a warning zone
//                that slows a leak without letting it crawl for minutes. None
//                when no such value still sleeps below memory.max, with the
//                reason.
//
// Each recommendation comes with the verdicts (managers::verdict) at the
// working set, at +10% and at +25% of it, the time a leak at the runs'
// growth takes to the OOM kill in both regimes, the slack, and the VPA
// recommender's rule on the same samples.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "advise/usage.h"
#include "advise/vpa.h"
#include "model/verdict.h"
#include "model/kernel_rules.h"

namespace cgmem::advise {

struct Options {
  double headroom = 0.25;     // memory.max over the working set
  double high_margin = 0.10;  // memory.high at least this far over it
  double crawl_s = 60;        // the longest climb from memory.high to memory.max, one sleep per page
  std::optional<uint32_t> hz;          // else the runs' host's
  std::optional<uint64_t> host_swap;   // else the runs' host's
};

struct Prediction {
  std::string label;      // "working set", "+10%", "+25%"
  uint64_t working_set = 0;
  model::Verdict verdict;
};

// A runaway program from the working set to the kill: at the runs' growth
// when they still grew at the end, else at the program's own allocation
// rate (the fastest it could leak).
struct Leak {
  std::string basis;  // "growth" or "alloc_rate"
  double growth_bytes_per_s = 0;
  std::optional<double> seconds_to_high;  // from the working set, at the growth
  double seconds_to_kill_per_batch = 0;   // to memory.max: growth plus the sleeps
  double seconds_to_kill_per_page = 0;
};

struct Advice {
  uint64_t memory_max_bytes = 0;
  std::string memory_max_reason;
  std::optional<uint64_t> memory_high_bytes;
  std::string memory_high_reason;
  uint64_t working_set_bytes = 0, peak_current_bytes = 0;
  std::optional<double> climb_per_page_s, climb_per_batch_s;  // memory.high -> memory.max, asleep
  uint64_t slack_bytes = 0;  // memory.max - working set
  uint64_t page_cache_outside_bytes = 0;  // memory.current's peak - the working set
  vpa::Recommendation vpa;
  int64_t vpa_slack_bytes = 0;  // VPA's target - working set
  std::vector<Prediction> predictions;
  std::optional<Leak> leak;
  std::string kernel;
  uint32_t hz = 1000;
  uint64_t page_size = 4096;
  model::KernelRules rules;
  std::string regime;  // when the per-page regime comes, on this kernel
  std::vector<std::string> notes;
};

// `usage` is combined() of the runs; `peaks` one working-set peak per run
// (the VPA rule's samples).
Advice recommend(const Usage& usage, const std::vector<uint64_t>& peaks, const Options& options);


}  // namespace cgmem::advise
