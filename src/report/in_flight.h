// The op a run was in when it stopped: at its cap, by the OOM kill, on a
// signal, or when the driver died. ops.jsonl has no line for it (the
// workload writes a line when an op ends), yet a throttled run stopped at
// its cap spends its last seconds in it, and PSI counts them: a 20 s run
// whose every op sleeps once per page may log no per-page op at all.
//
// Its start is the end of the last logged op; its end is the kill (outcome
// time_to_kill_s) or the last sampler tick that still saw the workload; its
// rise of memory.events high is the counter there less the last op's
// high_after. Single-process runs only: with several processes the last op
// of each is unknown from the counters, which count the whole cgroup.
#pragma once

#include <cstdint>
#include <optional>

#include "report/run.h"

namespace cgmem::report {

struct InFlight {
  int64_t start_ns = 0, end_ns = 0;  // CLOCK_MONOTONIC, as the ops' t_ns
  uint64_t high_rise = 0;            // memory.events high over the op so far
  uint64_t current = 0;              // memory.current when it started
  double seconds() const { return static_cast<double>(end_ns - start_ns) / 1e9; }
};

// nullopt when the workload ended by itself, the run has no ops, several
// processes, or no reading after the last op.
std::optional<InFlight> in_flight(const Run& run);

}  // namespace cgmem::report
