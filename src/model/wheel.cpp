#include "model/wheel.h"

namespace cgmem::model {

namespace {

constexpr uint32_t kClkShift = 3;  // LVL_CLK_SHIFT
constexpr uint64_t kLevelSize = 64;  // 1 << LVL_BITS

// LVL_START(n): the smallest timeout that level n takes.
constexpr uint64_t level_start(uint32_t n) { return (kLevelSize - 1) << ((n - 1) * kClkShift); }

}  // namespace

WheelSleep wheel_sleep(uint64_t jiffies, const Kernel& k) {
  const uint32_t depth = k.hz > 100 ? 9 : 8;  // LVL_DEPTH
  uint64_t delta = jiffies;
  uint32_t level = 0;
  while (level + 1 < depth && delta >= level_start(level + 1)) ++level;
  // Timeouts past the wheel's capacity are cut to WHEEL_TIMEOUT_MAX.
  const uint64_t cutoff = level_start(depth);
  const uint64_t step = uint64_t{1} << (level * kClkShift);
  if (delta >= cutoff) delta = cutoff - step;

  WheelSleep out;
  out.level = level;
  out.step_jiffies = step;
  out.min_jiffies = delta;
  out.max_jiffies = delta + step;
  out.typical_jiffies = step * (delta / step + 1);
  out.min_ms = jiffies_to_ms(out.min_jiffies, k);
  out.typical_ms = jiffies_to_ms(out.typical_jiffies, k);
  out.max_ms = jiffies_to_ms(out.max_jiffies, k);
  return out;
}

}  // namespace cgmem::model
