#include "report/sleep_compare.h"

#include <cmath>

#include "model/wheel.h"
#include "report/stats.h"

namespace cgmem::report {

OpSleep op_sleep(const Op* op, int64_t lat_ns, uint64_t sleeps, uint64_t jiffies, const model::Kernel& k) {
  auto wheel = model::wheel_sleep(jiffies, k);
  return {op, lat_ns, sleeps, model::jiffies_to_ms(jiffies, k), model::jiffies_to_ms(wheel.step_jiffies, k),
          wheel.level};
}

std::optional<uint64_t> sleeps_of_rise(uint64_t rise, bool one_over, SleepCheck& c) {
  ++c.ops_with_rise;
  if (auto whole = model::sleeps_from_high_events(rise)) return whole;
  // 17k + 1: k sleeps and one reclaim pass that did not end in a sleep.
  auto one_less = model::sleeps_from_high_events(rise - 1);
  bool extra = one_less && *one_less >= 1;
  if (extra) ++c.skipped_one_over;
  if (one_over && extra) return one_less;
  ++c.skipped_not_multiple;
  return std::nullopt;
}

void compare_sleeps(const std::vector<OpSleep>& ops, const model::Kernel& k, SleepCheck& c) {
  std::vector<double> ratio, wheel, level0, upper, capped, late;
  const double cap_ms = model::jiffies_to_ms(2 * k.hz, k);
  uint64_t within = 0;
  for (const auto& s : ops) {
    if (s.formula_ms <= 0) {
      ++c.formula_no_sleep;
      continue;
    }
    double lat = static_cast<double>(s.lat_ns) / kNsPerMs;
    double r = lat / (static_cast<double>(s.sleeps) * s.formula_ms);
    double w = lat / (static_cast<double>(s.sleeps) * (s.formula_ms + s.step_ms / 2));
    ratio.push_back(r);
    wheel.push_back(w);
    (s.level == 0 ? level0 : upper).push_back(w);
    late.push_back(lat / static_cast<double>(s.sleeps) - (s.formula_ms + s.step_ms / 2));
    if (std::fabs(r - 1.0) <= 0.3) ++within;
    if (s.formula_ms >= cap_ms) capped.push_back(lat / static_cast<double>(s.sleeps));
  }
  c.capped_ops = capped.size();
  c.median_capped_sleep_ms = median(capped);
  c.compared = ratio.size();
  c.median_ratio = median(ratio);
  c.median_ratio_wheel = median(wheel);
  c.median_ratio_wheel_level0 = median(level0);
  c.median_ratio_wheel_upper = median(upper);
  c.median_late_ms = median(late);
  if (!ratio.empty()) c.within_30 = static_cast<double>(within) / static_cast<double>(ratio.size());
}

}  // namespace cgmem::report
