// The one monotonic clock: CLOCK_MONOTONIC, as the run directory's t_ns and
// the kernel's own timestamps use. No allocation, safe in the hot loops.
// And the one wall-clock stamp that records carry (started_at, built_at).
#pragma once

#include <time.h>

#include <cstdint>
#include <ctime>
#include <string>

namespace cgmem {

inline uint64_t now_ns() {
  timespec ts;
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000ULL + static_cast<uint64_t>(ts.tv_nsec);
}

inline double now_s() { return static_cast<double>(now_ns()) / 1e9; }

// "2026-11-29T22:40:27Z": ISO 8601 in UTC, to the second.
inline std::string iso_utc(time_t when) {
  tm parts{};
  ::gmtime_r(&when, &parts);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &parts);
  return text;
}

}  // namespace cgmem
