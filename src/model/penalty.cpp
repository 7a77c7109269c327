// Two computations side by side: the true value with saturating arithmetic
// (what the formula means), and the kernel's own u64 arithmetic with its
// silent wrap (what a real kernel does at absurd overages).
#include "model/penalty.h"

#include <algorithm>
#include <limits>

namespace cgmem::model {

namespace {

constexpr uint64_t kSat = std::numeric_limits<uint64_t>::max();
using u128 = unsigned __int128;

uint64_t sat_mul(uint64_t a, uint64_t b) {
  uint64_t r;
  return __builtin_mul_overflow(a, b, &r) ? kSat : r;
}

uint64_t sat_add(uint64_t a, uint64_t b) {
  uint64_t r;
  return __builtin_add_overflow(a, b, &r) ? kSat : r;
}

// The kernel's calculate_overage, wrapping like u64 does.
uint64_t kernel_overage(uint64_t usage, uint64_t high) {
  if (usage <= high) return 0;
  high = std::max<uint64_t>(high, 1);
  uint64_t ov = usage - high;
  ov <<= kPrecisionShift;
  return ov / high;
}

uint64_t kernel_max_overage(std::span<const Level> levels) {
  uint64_t best = 0;
  for (const auto& l : levels) best = std::max(best, kernel_overage(l.usage, l.high));
  return best;
}

// The kernel's calculate_high_delay (unsigned long is 64 bits on x86_64).
uint64_t kernel_high_delay(uint64_t ov, uint32_t nr_pages, const Kernel& k) {
  if (ov == 0) return 0;
  uint64_t p = ov * ov * k.hz;
  p >>= kPrecisionShift;
  p >>= kScalingShift;
  return p * nr_pages / k.batch;
}

}  // namespace

uint64_t overage(uint64_t usage, uint64_t high) {
  if (usage <= high) return 0;
  high = std::max<uint64_t>(high, 1);
  u128 ov = (static_cast<u128>(usage - high) << kPrecisionShift) / high;
  return ov > kSat ? kSat : static_cast<uint64_t>(ov);
}

uint64_t max_overage(std::span<const Level> levels) {
  uint64_t best = 0;
  for (const auto& l : levels) best = std::max(best, overage(l.usage, l.high));
  return best;
}

uint64_t high_delay(uint64_t ov, uint32_t nr_pages, const Kernel& k) {
  if (ov == 0) return 0;
  uint64_t p = sat_mul(sat_mul(ov, ov), k.hz);
  if (p == kSat) return kSat;  // the true value is at least 2^64: stays saturated
  p >>= kPrecisionShift + kScalingShift;
  u128 scaled = static_cast<u128>(p) * nr_pages / std::max<uint32_t>(k.batch, 1);
  return scaled > kSat ? kSat : static_cast<uint64_t>(scaled);
}

Penalty penalty(const PenaltyInput& in, const Kernel& k) {
  Penalty out;
  uint32_t shift = std::min(in.shift, kMaxThrottleShift);
  uint64_t cap = 2ull * k.hz;
  uint64_t no_sleep = k.hz / 100;

  out.memory_overage = max_overage(in.memory);
  out.swap_overage = max_overage(in.swap);
  uint64_t sum = sat_add(high_delay(out.memory_overage, in.nr_pages, k),
                         high_delay(out.swap_overage, in.nr_pages, k));
  // A saturated sum means "at least 2^64": shifting it by <= 32 stays above the cap.
  out.unclamped_jiffies = sum == kSat ? kSat : sum >> shift;
  out.jiffies = std::min(out.unclamped_jiffies, cap);
  out.clamped = out.unclamped_jiffies > cap;
  out.sleeps = out.jiffies > no_sleep;

  uint64_t raw = kernel_high_delay(kernel_max_overage(in.memory), in.nr_pages, k) +
                 kernel_high_delay(kernel_max_overage(in.swap), in.nr_pages, k);
  out.kernel_jiffies = std::min(raw >> shift, cap);
  out.kernel_sleeps = out.kernel_jiffies > no_sleep;
  out.kernel_wraps = raw != sum || sum == kSat;
  return out;
}

Penalty penalty(uint64_t usage_pages, uint64_t high_pages, const Kernel& k, uint32_t nr_pages,
                uint32_t shift) {
  Level level{.usage = usage_pages, .high = high_pages};
  return penalty(PenaltyInput{.memory = {&level, 1}, .nr_pages = nr_pages, .shift = shift}, k);
}

double jiffies_to_ms(uint64_t jiffies, const Kernel& k) {
  return static_cast<double>(jiffies) * 1000.0 / static_cast<double>(k.hz);
}

}  // namespace cgmem::model
