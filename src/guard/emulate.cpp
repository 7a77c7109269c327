#include "guard/emulate.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "model/predict.h"

namespace cgmem::guard {
namespace {

constexpr double kMinSleeps = 8;  // sleeps counted before the measured k is trusted

model::Throttle throttle(uint64_t high, uint32_t shift, double k, const model::Kernel& kernel) {
  return {.kernel = kernel, .high = high, .shift = shift, .sleeps_per_batch = k, .procs = 1, .wheel = true};
}

}  // namespace

void advance(ShiftEmulation& e, uint32_t shift, uint64_t from, uint64_t to, double dt, uint64_t high_rise,
             uint64_t high, const model::Kernel& kernel) {
  if (!e.started) {
    e = {.started = true, .start_usage = from};
  }
  if (dt <= 0) return;
  e.actual_s += dt;
  uint64_t usage = from / 2 + to / 2;
  double plain = model::sleep_seconds(throttle(high, 0, 1, kernel), usage);
  double shifted = model::sleep_seconds(throttle(high, shift, 1, kernel), usage);
  double sleeps = double(high_rise) / double(model::kHighEventsPerSleep);
  e.sleeps += sleeps;
  if (plain > 0 && to > from) e.slept_growth += double(to - from);
  double asleep = plain > 0 ? std::min(dt, sleeps * plain) : 0;
  e.emulated_s += (dt - asleep) + (plain > 0 ? asleep * shifted / plain : 0);
}

ShiftVerdict judge(const ShiftEmulation& e, uint32_t shift, uint64_t usage, uint64_t high, const Limit& max,
                   const model::Kernel& kernel) {
  ShiftVerdict v;
  double batch = double(kernel.batch);
  v.sleeps_per_batch = batch;
  if (e.sleeps >= kMinSleeps && e.slept_growth > 0) {
    double bytes_per_sleep = e.slept_growth / e.sleeps;
    v.sleeps_per_batch = std::clamp(batch * double(kernel.page_size) / bytes_per_sleep, 1.0, batch);
  }
  if (max.is_max()) {
    v.remaining_s = std::numeric_limits<double>::infinity();
  } else if (usage < max.bytes()) {
    v.remaining_s = model::grow(throttle(high, shift, v.sleeps_per_batch, kernel), usage, max.bytes()).seconds;
  }
  v.budget_s = e.emulated_s + v.remaining_s;
  v.kill = e.started && e.actual_s > 0 && e.actual_s >= v.budget_s;
  return v;
}

}  // namespace cgmem::guard
