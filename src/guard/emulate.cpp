#include "guard/emulate.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "model/predict.h"

namespace cgmem::guard {
namespace {

constexpr double kMinSleeps = 8;     // sleeps counted before the measured rate is trusted
constexpr double kMaxStrips = 1000;  // R sums at most this many strips of usage

constexpr double kNever = std::numeric_limits<double>::infinity();

double sleep_at(uint64_t usage, uint32_t shift, uint64_t high, const model::Kernel& kernel) {
  return model::sleep_seconds({.kernel = kernel, .high = high, .shift = shift, .wheel = true}, usage);
}

// The bin of a cycle's length: quarter octaves from 1 ms.
size_t length_bin(double s) {
  double bin = std::floor(4 * std::log2(std::max(s, 1e-3) * 1000));
  return size_t(std::min(bin, double(kLengthBins - 1)));
}

// Seconds per page spent in charging (the sleep and the reclaim passes of
// each batch charge) at this usage and shift. A charge costs h = s + 17 c
// where it sleeps, c where it does not; the pages it buys, when a drain
// comes every 1 / rate seconds: a cycle (h, then a seconds per page bought)
// meets one with p = rate * (h + m a), and then bought one page, else the
// batch: m = batch - (batch - 1) p, solved for m.
double charging_per_page(uint64_t usage, uint32_t shift, const Costs& k, uint64_t high, const model::Kernel& kernel) {
  double s = sleep_at(usage, shift, high, kernel);
  double h = s > 0 ? s + double(model::kHighEventsPerSleep) * k.per_event_s : k.per_event_s;
  if (h <= 0) return 0;
  const double batch = kernel.batch;
  double m = std::isinf(k.drains_per_s) ? 1
             : (batch - (batch - 1) * k.drains_per_s * h) / (1 + (batch - 1) * k.drains_per_s * k.per_page_s);
  return h / std::clamp(m, 1.0, batch);
}

// Charging time per page at `shift` over that at 0 (1 where neither charges time).
double charging_ratio(uint64_t usage, uint32_t shift, const Costs& k, uint64_t high, const model::Kernel& kernel) {
  double at_0 = charging_per_page(usage, 0, k, high, kernel);
  return at_0 > 0 ? charging_per_page(usage, shift, k, high, kernel) / at_0 : 1;
}

// R without the charge under way: the time at `shift` from usage to max,
// summed over strips of pages.
double remaining_s(uint64_t usage, uint64_t max, uint32_t shift, const Costs& k, uint64_t high,
                   const model::Kernel& kernel) {
  const double page = double(kernel.page_size);
  const double pages = double(max - usage) / page;
  const double strip = std::max(1.0, std::ceil(pages / kMaxStrips));
  double seconds = 0;
  for (double done = 0; done < pages; done += strip) {
    double width = std::min(strip, pages - done);
    auto middle = usage + uint64_t((done + width / 2) * page);
    seconds += width * (k.per_page_s + charging_per_page(middle, shift, k, high, kernel));
  }
  return seconds;
}

// The rate at which the cycles counted, binned by length, meet as many
// drains as were measured: sum over bins of min(cycles, their time * rate)
// = drained, increasing in the rate, solved by bisection on its logarithm.
double drains_per_s(const ShiftEmulation& e) {
  if (e.sleeps < kMinSleeps || e.drained >= e.sleeps) return kNever;
  auto met = [&](double rate) {
    double n = 0;
    for (size_t b = 0; b < kLengthBins; ++b) n += std::min(e.cycles_by_length[b], e.cycle_s_by_length[b] * rate);
    return n;
  };
  double lo = std::log(1e-3), hi = std::log(1e5);  // drains per second
  for (int i = 0; i < 60; ++i) {
    double mid = (lo + hi) / 2;
    (met(std::exp(mid)) < e.drained ? lo : hi) = mid;
  }
  return std::exp(hi);
}

}  // namespace

Costs costs(const ShiftEmulation& e) {
  Costs k{.drains_per_s = drains_per_s(e)};
  // awake = c * events + a * pages, least squares over the intervals.
  const Sums& s = e.fit;
  double det = s.ee * s.pp - s.ep * s.ep;
  if (det > 1e-9 * s.ee * s.pp) {
    k.per_event_s = (s.we * s.pp - s.wp * s.ep) / det;
    k.per_page_s = (s.wp * s.ee - s.we * s.ep) / det;
  }
  if (k.per_event_s <= 0 || det <= 1e-9 * s.ee * s.pp) k.per_event_s = 0, k.per_page_s = s.pp > 0 ? s.wp / s.pp : 0;
  if (k.per_page_s < 0) k.per_page_s = 0, k.per_event_s = s.ee > 0 ? s.we / s.ee : 0;
  return k;
}

void advance(ShiftEmulation& e, uint32_t shift, uint64_t from, uint64_t to, double dt, uint64_t high_rise,
             uint64_t high, const model::Kernel& kernel) {
  if (!e.started) {
    e = {.started = true, .start_usage = from};
  }
  if (dt <= 0) return;
  e.actual_s += dt;
  uint64_t usage = from / 2 + to / 2;
  // Sleeps counted where the middle of the interval does not sleep yet
  // happened near its end.
  double plain = sleep_at(usage, 0, high, kernel);
  if (plain <= 0) plain = sleep_at(to, 0, high, kernel);
  double sleeps = plain > 0 ? double(high_rise) / double(model::kHighEventsPerSleep) : 0;
  double pages = to > from ? double(to - from) / double(kernel.page_size) : 0;
  // memory.events high rises as a sleep begins: a sleep longer than the
  // interval is asleep time in the intervals that follow too.
  e.owed_s += sleeps * plain;
  double asleep = std::min(dt, e.owed_s);
  e.owed_s -= asleep;
  double awake = dt - asleep, events = double(high_rise);
  e.fit = {e.fit.ee + events * events, e.fit.pp + pages * pages, e.fit.ep + events * pages,
           e.fit.we + awake * events, e.fit.wp + awake * pages};
  if (sleeps > 0) {
    const double batch = kernel.batch;
    e.sleeps += sleeps;
    e.drained += std::clamp((batch * sleeps - pages) / (batch - 1), 0.0, sleeps);
    size_t bin = length_bin(dt / sleeps);  // a cycle: one charge and the pages it bought
    e.cycles_by_length[bin] += sleeps;
    e.cycle_s_by_length[bin] += dt;
  }
  // The charging time (sleeps and reclaim passes) scales with the shift;
  // the rest of the time awake does not.
  Costs k = costs(e);
  double charging = std::min(dt, asleep + events * k.per_event_s);
  e.emulated_s += (dt - charging) + charging * charging_ratio(usage, shift, k, high, kernel);
}

ShiftVerdict judge(const ShiftEmulation& e, uint32_t shift, uint64_t usage, uint64_t high, const Limit& max,
                   const model::Kernel& kernel) {
  ShiftVerdict v;
  Costs k = costs(e);
  v.costs = k;
  double s = sleep_at(usage, shift, high, kernel);
  v.sleeps_per_batch = s > 0 ? double(kernel.batch) * charging_per_page(usage, shift, k, high, kernel) /
                                   (s + double(model::kHighEventsPerSleep) * k.per_event_s)
                             : 0;
  if (max.is_max()) {
    v.remaining_s = kNever;
  } else {
    // The sleep under way when sampled is still to come, scaled like the rest
    // (the kernel kills at the charge after it, even at memory.max).
    v.remaining_s = e.owed_s * charging_ratio(usage, shift, k, high, kernel);
    if (usage < max.bytes()) v.remaining_s += remaining_s(usage, max.bytes(), shift, k, high, kernel);
  }
  v.budget_s = e.emulated_s + v.remaining_s;
  v.kill = e.started && e.actual_s > 0 && e.actual_s >= v.budget_s;
  return v;
}

}  // namespace cgmem::guard
