// `cgmem advise --verify`: the program run again, the way its input run was
// made, under the recommended limits, and what the kernel did to it beside
// what advise said it would.
//
//   killed        predicted when the verdict at the working set is an OOM
//                 kill, or when the input run's cap stopped it still growing
//                 (a leak: run again with more time, it meets memory.max),
//                 unless it is the workload and its --target fits under
//                 memory.max. A run that ended by itself grows as far again
//                 and no further.
//   stalled share memory PSI "some" over the run, the share of its time a
//                 task waited on memory (the throttle's sleeps are counted
//                 there: mem_cgroup_handle_over_high enters a memstall around
//                 them). A program that fits is bounded by kFitsStallShare.
//   time to kill  a leak: the input run's own time to its peak, then advise's
//                 time from the working set to the kill at one sleep per
//                 batch and at one per page; measured from the run's start
//   slowdown      the median op latency against the input run's (workload
//                 runs; a --command run has no ops)
//   load          a --command run's load: its throughput and p99 latency
//                 (report/load_output.h) against the input run's
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "advise/recommend.h"
#include "report/run.h"

namespace cgmem::advise {

// The stalled share a program that fits may show: reclaim of its page
// cache at memory.high, and the sampler's own granularity.
inline constexpr double kFitsStallShare = 0.05;
// Reclaim time is not in the model: a kill may come this much later than
// the per-page bound.
inline constexpr double kKillSlack = 0.25;

struct Check {
  std::string what;       // "killed", "stalled share", "time to kill", "slowdown"
  std::string predicted;  // in words, with the bound
  std::string measured;
  std::optional<bool> holds;  // empty: shown, not judged
};

struct Verification {
  std::string dir;
  std::string status;
  std::vector<Check> checks;
  bool holds() const;  // every judged check holds
};

// `cgmem run`'s arguments for the input run again under the advice's
// limits (none with `limited` false: the probe's run), with its run
// directory at `out`, named `name`.
std::vector<std::string> rerun_args(const report::Run& input, const Advice& advice, const std::string& out,
                                    const std::string& name, bool limited = true);

// The limited run against the advice (and the input run it repeats).
Verification verify(const Advice& advice, const Usage& input_usage, const report::Run& input, const report::Run& limited);

}  // namespace cgmem::advise
