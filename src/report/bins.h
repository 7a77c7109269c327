// The plots' series over memory.current. Ops are grouped into bins of
// memory.current after the op, one op size wide, widened so that a series
// never has more than kMaxBins points; each point is a bin's median.
//
// A counting sort groups each series' values in one array, so a million ops
// cost three passes and about 30 MB, with no per-bin vectors: the plots'
// data is on the report's critical path (bench/report_vs_python.sh).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "report/run.h"

namespace cgmem::report {

inline constexpr double kMiB = 1048576.0;  // the plots' unit of memory
inline constexpr size_t kMaxBins = 2000;  // also the most points of a memory.current line

struct BinPoint {
  double mib = 0;     // the bin's centre, MiB of memory.current
  double median = 0;  // median of the values in it
};

struct OpSeries {
  std::vector<BinPoint> latency_ms;  // every op's latency
  // Sleeps per op (high counter rise / 17), from the ops of single-process
  // runs whose rise is a whole number of sleeps.
  std::vector<BinPoint> sleeps;
};

// The series over all ops of `runs`; `chunk` is the op size in bytes.
OpSeries bin_ops(std::span<const Run* const> runs, uint64_t chunk);

}  // namespace cgmem::report
