// The overall rate limit: at most N actions in any 60 s, all cgroups
// together, so a policy that matches too much cannot kill a host's worth of
// services in one scan. (The per-cgroup limit is the Guard's: decide.h.)
#pragma once

#include <cstdint>
#include <deque>

namespace cgmem::guard {

class RateLimit {
 public:
  explicit RateLimit(uint32_t per_minute) : per_minute_(per_minute) {}
  // True (and counted) when another action fits in the 60 s before now_s.
  bool take(double now_s) {
    while (!times_.empty() && times_.front() <= now_s - 60) times_.pop_front();
    if (times_.size() >= per_minute_) return false;
    times_.push_back(now_s);
    return true;
  }

 private:
  uint32_t per_minute_;
  std::deque<double> times_;
};

}  // namespace cgmem::guard
