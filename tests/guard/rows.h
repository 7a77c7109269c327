// Synthetic scanner rows for the guard's tests: one cgroup's samples a
// second apart, with the state and rates the classifier would give.
#pragma once

#include <string>
#include <vector>

#include "watch/scanner.h"

namespace cgmem::guard::testing {

constexpr uint64_t kHigh = 7372 * 4096;  // 28.8 MiB
constexpr uint64_t kMax = 32 << 20;

struct Series {
  std::string path;
  uint64_t id = 42;
  std::vector<watch::Row> rows;

  // One more second: state, memory.current, and the high events of the interval.
  watch::Row& next(watch::State state, uint64_t current, uint64_t high_rise = 0, Limit high = Limit::of(kHigh)) {
    watch::Row r;
    r.path = path;
    r.id = id;
    r.state = state;
    uint64_t t = rows.size() + 1;
    r.sample.t_ns = t * 1'000'000'000;
    r.sample.current = current;
    r.sample.high = high;
    r.sample.max = Limit::of(kMax);
    uint64_t before = rows.empty() ? current : rows.back().sample.current;
    r.sample.local.high = (rows.empty() ? 0 : rows.back().sample.local.high) + high_rise;
    r.rates.dt_s = 1;
    r.rates.rise.high = high_rise;
    r.rates.growth_bytes_per_s = double(current) - double(before);
    rows.push_back(r);
    rows.back().path = path;
    return rows.back();
  }
};

}  // namespace cgmem::guard::testing
