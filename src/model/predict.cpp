#include "model/predict.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "model/wheel.h"

namespace cgmem::model {

namespace {

// grow() evaluates the curve at most this many times; past that it sums
// wider strips (each weighted by the sleeps it stands for).
constexpr double kMaxEvaluations = 1e6;

uint64_t page_size(const Throttle& t) { return std::max<uint64_t>(t.kernel.page_size, 1); }
uint64_t high_pages(const Throttle& t) { return t.high / page_size(t); }
uint64_t max_pages(const Throttle& t) { return std::numeric_limits<uint64_t>::max() / page_size(t); }

double sleeps_per_batch(const Throttle& t) {
  return std::clamp(t.sleeps_per_batch, 1.0, static_cast<double>(std::max<uint32_t>(t.kernel.batch, 1)));
}

Penalty batch_penalty(const Throttle& t, uint64_t usage_pages) {
  return penalty(usage_pages, high_pages(t), t.kernel, t.kernel.batch, t.shift);
}

double sleep_at_pages(const Throttle& t, uint64_t usage_pages) {
  Penalty p = batch_penalty(t, usage_pages);
  if (!p.sleeps) return 0;
  uint64_t jiffies = t.wheel ? wheel_sleep(p.jiffies, t.kernel).typical_jiffies : p.jiffies;
  return jiffies_to_ms(jiffies, t.kernel) / 1000.0;
}

// The first page count in [high, max_pages] where pred holds (pred is
// monotone in usage because the penalty is), or nullopt.
template <typename Pred>
std::optional<uint64_t> first_pages(const Throttle& t, Pred pred) {
  uint64_t lo = high_pages(t), hi = max_pages(t);
  if (!pred(batch_penalty(t, hi))) return std::nullopt;
  while (lo < hi) {
    uint64_t mid = lo + (hi - lo) / 2;
    if (pred(batch_penalty(t, mid))) hi = mid; else lo = mid + 1;
  }
  return lo;
}

std::optional<uint64_t> sleep_start_pages(const Throttle& t) {
  return first_pages(t, [](const Penalty& p) { return p.sleeps; });
}

std::optional<uint64_t> cap_start_pages(const Throttle& t) {
  const uint64_t cap = 2ull * t.kernel.hz;  // MEMCG_MAX_HIGH_DELAY_JIFFIES
  return first_pages(t, [cap](const Penalty& p) { return p.jiffies >= cap; });
}

}  // namespace

double sleep_seconds(const Throttle& t, uint64_t usage) {
  return sleep_at_pages(t, usage / page_size(t));
}

double op_seconds(const Throttle& t, uint64_t usage, uint64_t bytes) {
  double pages = static_cast<double>(bytes) / static_cast<double>(page_size(t));
  double sleeps = pages / std::max<uint32_t>(t.kernel.batch, 1) * sleeps_per_batch(t);
  return sleeps * sleep_seconds(t, usage);
}

double slowdown(const Throttle& t, uint64_t usage, uint64_t bytes, double unthrottled_seconds) {
  return (unthrottled_seconds + op_seconds(t, usage, bytes)) / unthrottled_seconds;
}

double growth_rate(const Throttle& t, uint64_t usage) {
  double sleep = sleep_seconds(t, usage);
  if (sleep <= 0) return std::numeric_limits<double>::infinity();
  double bytes_per_sleep = static_cast<double>(t.kernel.batch) / sleeps_per_batch(t) *
                           static_cast<double>(page_size(t));
  return std::max<uint32_t>(t.procs, 1) * bytes_per_sleep / sleep;
}

std::optional<uint64_t> sleep_start(const Throttle& t) {
  auto pages = sleep_start_pages(t);
  if (!pages) return std::nullopt;
  return *pages * page_size(t);
}

std::optional<uint64_t> cap_start(const Throttle& t) {
  auto pages = cap_start_pages(t);
  if (!pages) return std::nullopt;
  return *pages * page_size(t);
}

double sleeps_per_batch_beside(const Kernel& kernel, uint32_t other_cgroups) {
  return kernel.rules.per_page_possible(other_cgroups) ? std::max<uint32_t>(kernel.batch, 1) : 1.0;
}

Growth grow(const Throttle& t, uint64_t from, uint64_t to) {
  Growth out;
  const double from_pages = static_cast<double>(from / page_size(t));
  const double to_pages = static_cast<double>(to / page_size(t));
  auto start = sleep_start_pages(t);
  if (!start || static_cast<double>(*start) >= to_pages) return out;
  auto cap = cap_start_pages(t);
  out.throttled_from = *start * page_size(t);
  if (cap && static_cast<double>(*cap) < to_pages) out.capped_from = *cap * page_size(t);

  const double step = t.kernel.batch / sleeps_per_batch(t);  // pages per sleep
  double u = std::max(from_pages, static_cast<double>(*start));
  const double sloped_end = std::min(to_pages, cap ? static_cast<double>(*cap) : to_pages);
  // Sleeps per evaluation: 1 unless the sloped part is too long to walk.
  const double stride = std::max(1.0, std::ceil((sloped_end - u) / step / kMaxEvaluations));
  double seconds = 0;
  uint64_t sleeps = 0;
  while (u < sloped_end) {
    double n = std::min(stride, std::ceil((sloped_end - u) / step));
    seconds += n * sleep_at_pages(t, static_cast<uint64_t>(u));
    sleeps += static_cast<uint64_t>(n);
    u += n * step;
  }
  if (u < to_pages) {  // clamped: every sleep is the cap
    double n = std::ceil((to_pages - u) / step);
    seconds += n * sleep_at_pages(t, static_cast<uint64_t>(u));
    sleeps += static_cast<uint64_t>(n);
  }
  const double procs = std::max<uint32_t>(t.procs, 1);
  out.seconds = seconds / procs;
  out.sleeps = sleeps;
  return out;
}

}  // namespace cgmem::model
