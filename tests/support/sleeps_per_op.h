// The median sleeps per throttled op of a run directory, as the VM tests
// count them: the rise of memory.events' high counter over an op, divided
// by the events one sleep adds (1 + MAX_RECLAIM_RETRIES = 17 on 6.1 and
// 6.12: mem_cgroup_handle_over_high counts one per reclaim try), rounded
// down (a return to user space that reclaimed without sleeping adds 1, seen
// as rises of 18 and 1089 = 64 x 17 + 1), over the ops whose formula sleep
// at their memory.current is 50 ms or more.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <vector>

#include "model/penalty.h"

namespace cgmem::testing {

// The sleeps of each throttled op, in order.
inline std::vector<uint64_t> sleeps_per_throttled_op(const nlohmann::json& meta, const std::vector<nlohmann::json>& ops) {
  model::Kernel kernel{.hz = meta["host"]["hz"].is_number() ? meta["host"]["hz"].get<uint32_t>() : 250};
  uint64_t high_pages = meta["limits"]["high"].get<uint64_t>() / kernel.page_size;
  std::vector<uint64_t> sleeps;
  for (const auto& op : ops) {
    uint64_t usage_pages = op["current_before"].get<uint64_t>() / kernel.page_size;
    auto p = model::penalty(usage_pages, high_pages, kernel);
    if (model::jiffies_to_ms(p.jiffies, kernel) < 50.0) continue;
    uint64_t rise = op["high_after"].get<uint64_t>() - op["high_before"].get<uint64_t>();
    sleeps.push_back(rise / model::kHighEventsPerSleep);
  }
  return sleeps;
}

inline double median_sleeps_per_op(const nlohmann::json& meta, const std::vector<nlohmann::json>& ops) {
  std::vector<uint64_t> sleeps = sleeps_per_throttled_op(meta, ops);
  EXPECT_GE(sleeps.size(), 3u) << "too few throttled ops to take a median";
  if (sleeps.empty()) return -1;
  std::sort(sleeps.begin(), sleeps.end());
  size_t mid = sleeps.size() / 2;
  return sleeps.size() % 2 ? double(sleeps[mid]) : (sleeps[mid - 1] + sleeps[mid]) / 2.0;
}

}  // namespace cgmem::testing
