// The one monotonic clock: CLOCK_MONOTONIC, as the run directory's t_ns and
// the kernel's own timestamps use. No allocation, safe in the hot loops.
#pragma once

#include <time.h>

#include <cstdint>

namespace cgmem {

inline uint64_t now_ns() {
  timespec ts;
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000ULL + static_cast<uint64_t>(ts.tv_nsec);
}

inline double now_s() { return static_cast<double>(now_ns()) / 1e9; }

}  // namespace cgmem
