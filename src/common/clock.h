// The one monotonic clock: CLOCK_MONOTONIC, as the run directory's t_ns and
// the kernel's own timestamps use. No allocation, safe in the hot loops.
// And the wall clock: the stamp records carry (started_at, built_at) and
// the seconds that watch lines and the exporter's scans are stamped with.
//
// Clock is the same time behind an interface, for loops that tests drive:
// a test's clock jumps to each deadline, so a 60 s cap is hit at once and
// the same number of ticks every time.
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

// CLOCK_REALTIME in seconds, with the fraction.
inline double unix_time_s() {
  timespec ts;
  ::clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

class Clock {
 public:
  virtual ~Clock() = default;
  virtual uint64_t now_ns() = 0;
  // Sleeps until `deadline_ns` on this clock; a signal ends the sleep early,
  // and so does input on `wake_fd` when it is >= 0.
  virtual void sleep_until(uint64_t deadline_ns, int wake_fd) = 0;
};

// CLOCK_MONOTONIC.
Clock& monotonic_clock();

// "2026-11-29T22:40:27Z": ISO 8601 in UTC, to the second.
inline std::string iso_utc(time_t when) {
  tm parts{};
  ::gmtime_r(&when, &parts);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &parts);
  return text;
}

}  // namespace cgmem
