// What a program uses when nothing limits it, read from run directories
// recorded without memory.high or memory.max (`cgmem run --command ...`, or
// the workload with no limit): the numbers `cgmem advise` sets limits from.
//
// The working set is cAdvisor's, the one the kubelet and the VPA
// recommender act on: memory.current minus inactive_file (page cache the
// kernel reclaims first). Growth is the least-squares slope of that working
// set over the run's second half: a program that still grows at the end
// (a leak, or a warm-up longer than the run) has not shown its working set.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/error.h"
#include "report/run.h"

namespace cgmem::advise {

// One sample of the working set, for the VPA rule and for the growth.
struct Point {
  double t_s = 0;  // since the run's first sample
  uint64_t working_set = 0;
};

struct Usage {
  std::string dir;
  uint64_t working_set = 0;   // peak of memory.current - inactive_file (or of memory.current)
  uint64_t peak_current = 0;  // peak memory.current (page cache included)
  double duration_s = 0;      // first to last sample
  double growth_bytes_per_s = 0;  // over the second half; may be negative
  // Still rising at the end: the second half's rise is at least
  // kGrowingShare of the peak, and the peak is in the run's last tenth.
  bool growing = false;
  // Bytes a second one process allocates while nothing slows it: one op's
  // bytes over the median latency of the workload's grow phase; empty for a
  // --command run (it writes no ops).
  std::optional<double> alloc_rate;
  uint64_t op_bytes = 256 * 1024;
  int procs = 1;
  std::string kernel;  // uname -r of the host the run was made on
  uint32_t hz = 1000;
  uint64_t page_size = 4096;
  uint64_t host_swap = 0;  // swap_total_bytes of that host
  std::vector<Point> series;
};

inline constexpr double kGrowingShare = 0.05;
// Page cache beyond this share of the working set is worth a word: a
// program that reads it again slows down when a limit reclaims it.
inline constexpr double kPageCacheShare = 0.25;

// What counts as the working set: cAdvisor's (page cache the kernel
// reclaims first left out), or all of memory.current, for a program that
// needs its page cache to stay fast (--page-cache).
enum class WorkingSet { without_inactive_file, memory_current };
inline constexpr size_t kMinSamples = 3;

// The usage of one run, or why it cannot be advised from: a limit was set
// (its usage is what the limit allowed), it was OOM-killed or did not
// finish, or it has fewer than kMinSamples samples of memory.current.
Result<Usage> usage_of(const report::Run& run, WorkingSet kind = WorkingSet::without_inactive_file);

// From u.series (and u.dir, for errors): the working set's peak, the
// duration, the growth and whether it is growing; fails below kMinSamples.
Result<void> summarize(Usage& u);

// The working set of several runs together (repetitions, load levels): the
// largest, the fastest growth, the median allocation rate; they must come
// from one page size.
Result<Usage> combined(const std::vector<Usage>& runs);

}  // namespace cgmem::advise
