#include "common/clock.h"

#include <poll.h>

namespace cgmem {

namespace {

timespec to_timespec(uint64_t ns) {
  return {static_cast<time_t>(ns / 1'000'000'000ULL), static_cast<long>(ns % 1'000'000'000ULL)};
}

class MonotonicClock final : public Clock {
 public:
  uint64_t now_ns() override { return cgmem::now_ns(); }
  // EINTR (a signal) simply returns: the caller's loop looks at why.
  void sleep_until(uint64_t deadline_ns, int wake_fd) override {
    if (wake_fd < 0) {
      timespec until = to_timespec(deadline_ns);
      ::clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, nullptr);
      return;
    }
    uint64_t now = cgmem::now_ns();
    if (now >= deadline_ns) return;
    timespec timeout = to_timespec(deadline_ns - now);
    pollfd fd{.fd = wake_fd, .events = POLLIN, .revents = 0};
    ::ppoll(&fd, 1, &timeout, nullptr);
  }
};

}  // namespace

Clock& monotonic_clock() {
  static MonotonicClock clock;
  return clock;
}

}  // namespace cgmem
