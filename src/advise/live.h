// `cgmem advise --cgroup PATH --for DUR`: a live cgroup's usage, read by the
// watch scanner (src/watch: the same files and parsers as `cgmem watch`;
// nothing is written) every interval for a while, as the Usage advise
// recommends from. A SIGINT or SIGTERM ends the watch early and keeps what
// was read.
//
// A cgroup under a memory.high or memory.max that shaped its usage (their
// events rose while it was watched) is refused: what it used is what the
// limit allowed. One whose limits stayed out of the way is advised, with a
// note that names them.
#pragma once

#include <csignal>
#include <cstdint>
#include <string>
#include <vector>

#include "advise/usage.h"
#include "common/clock.h"
#include "common/sink.h"

namespace cgmem::advise {

struct LiveOptions {
  std::string cgroup;           // a cgroup2 directory
  uint64_t for_ns = 0;          // how long to watch
  uint64_t interval_ns = 1'000'000'000;
  WorkingSet kind = WorkingSet::without_inactive_file;
  std::string kernel;           // the host's uname -r, its HZ, page size and swap
  uint32_t hz = 1000;
  uint64_t page_size = 4096;
  uint64_t host_swap = 0;
  const volatile std::sig_atomic_t* stop = nullptr;
  LineSink progress;            // a line every 10 samples
  Clock* clock = nullptr;       // tests drive it; default monotonic_clock()
};

struct LiveUsage {
  Usage usage;
  std::vector<std::string> notes;  // the limits it had, an early stop
};

Result<LiveUsage> watch_usage(const LiveOptions& options);

}  // namespace cgmem::advise
