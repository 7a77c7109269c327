// `cgmem advise --probe`: senpai's method on the program in the lab. The
// program runs again the way its run was made, without limits, and the
// prober steps its cgroup's memory.high down from the peak, 10% of
// memory.current at a time, while memory PSI "some" stays at or under
// --probe-threshold of each interval, and 10% back up when it rises past
// it. The lowest memory.high that passed an interval without that pressure
// is the memory the program needs without slowing down: page cache it reads
// again counts, cold cache does not, which usage alone cannot tell.
//
// It writes memory.high of one cgroup only: the one its own `cgmem run`
// made and marked (trusted.cgmem names that run's driver pid and run
// directory, lab/marker.h); any other is refused before the first write.
#pragma once

#include <sys/types.h>

#include <csignal>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "common/clock.h"
#include "common/error.h"
#include "common/sink.h"
#include "common/size.h"

namespace cgmem::advise {

struct ProbeOptions {
  std::string cgroup;            // the probing run's cgroup directory
  pid_t driver = 0;              // its `cgmem run`, as the mark names it
  std::string run_dir;           // its run directory, as the mark names it
  uint64_t start_high = 0;       // the first memory.high: the input's peak memory.current
  uint64_t page_size = 4096;
  uint64_t interval_ns = 2'000'000'000;
  double threshold = 0.005;      // stalled share of an interval that is pressure (10 ms in 2 s)
  double step = 0.10;            // down from memory.current, or up from memory.high
  size_t max_steps = 60;
  std::function<bool()> running;  // the probing run goes on
  const volatile std::sig_atomic_t* stop = nullptr;
  LineSink progress;
  Clock* clock = nullptr;         // default monotonic_clock()
};

struct ProbeStep {
  double t_s = 0;
  uint64_t memory_high = 0;     // in force over the interval
  uint64_t memory_current = 0;  // at its end
  double stalled_ms = 0;        // memory PSI some over the interval
  bool pressure = false;        // stalled over the threshold
};

struct Probe {
  std::vector<ProbeStep> steps;
  // The lowest memory.high an interval passed without pressure, once the
  // probe found pressure below it (converged); else the lowest it reached.
  std::optional<uint64_t> working_set;
  bool converged = false;
};

Result<Probe> probe(const ProbeOptions& options);

}  // namespace cgmem::advise
