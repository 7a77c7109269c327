#include "guard/emulate.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "model/predict.h"
#include "model/wheel.h"

namespace cgmem::guard {
namespace {

constexpr double kMinSleeps = 3;     // sleeps counted before the measured rate is trusted
constexpr double kMaxStrips = 1000;  // R sums at most this many strips of usage

constexpr double kNever = std::numeric_limits<double>::infinity();

uint64_t batch_bytes(const model::Kernel& kernel) { return uint64_t(kernel.batch) * kernel.page_size; }

// The sleep after a batch charge while `used` bytes are in use: the kernel
// computes it from its counter just after the charge, which holds the whole
// batch (the stock was empty, used up or drained, or it would not have
// charged). Taken at `used` alone it is a quarter shorter at the study's
// scale, and the difference looked like time awake.
double batch_sleep(uint64_t used, uint32_t shift, uint64_t high, const model::Kernel& kernel) {
  return model::sleep_seconds({.kernel = kernel, .high = high, .shift = shift, .wheel = true},
                              used + batch_bytes(kernel));
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
double charging_per_page(uint64_t used, uint32_t shift, const Costs& k, uint64_t high, const model::Kernel& kernel) {
  double s = batch_sleep(used, shift, high, kernel);
  double h = s > 0 ? s + double(model::kHighEventsPerSleep) * k.per_event_s : k.per_event_s;
  if (h <= 0) return 0;
  const double batch = kernel.batch;
  double m = std::isinf(k.drains_per_s) ? 1
             : (batch - (batch - 1) * k.drains_per_s * h) / (1 + (batch - 1) * k.drains_per_s * k.per_page_s);
  return h / std::clamp(m, 1.0, batch);
}

// Charging time per page at `shift` over that at 0 (1 where neither charges time).
double charging_ratio(uint64_t used, uint32_t shift, const Costs& k, uint64_t high, const model::Kernel& kernel) {
  double at_0 = charging_per_page(used, 0, k, high, kernel);
  return at_0 > 0 ? charging_per_page(used, shift, k, high, kernel) / at_0 : 1;
}

// The sleep after a charge of one page: 1 / 64 of a batch's penalty
// (calculate_high_delay scales by nr_pages / 64), 0 where that is HZ / 100
// or less.
double single_page_sleep(uint64_t used, uint32_t shift, uint64_t high, const model::Kernel& kernel) {
  model::Penalty p =
      model::penalty(model::to_pages(used, kernel) + 1, model::to_pages(high, kernel), kernel, 1, shift);
  return p.sleeps ? model::jiffies_to_ms(model::wheel_sleep(p.jiffies, kernel).typical_jiffies, kernel) / 1000 : 0;
}

// R without the charge under way: the time at `shift` from `used` bytes in
// use to max, summed over strips of pages. In the last batch below max a
// batch no longer fits (try_charge falls back to the page asked for): each
// page charges alone, with no stock to drain, and its sleep is a page's.
double remaining_s(uint64_t used, uint64_t max, uint32_t shift, const Costs& k, uint64_t high,
                   const model::Kernel& kernel) {
  const double page = double(kernel.page_size);
  const uint64_t last_batch = max - std::min(max, batch_bytes(kernel));
  const uint64_t edge = std::max(used, last_batch);
  const double pages = double(edge - used) / page;
  const double strip = std::max(1.0, std::ceil(pages / kMaxStrips));
  double seconds = 0;
  for (double done = 0; done < pages; done += strip) {
    double width = std::min(strip, pages - done);
    auto middle = used + uint64_t((done + width / 2) * page);
    seconds += width * (k.per_page_s + charging_per_page(middle, shift, k, high, kernel));
  }
  for (uint64_t u = edge; u < max; u += kernel.page_size) {
    double s = single_page_sleep(u, shift, high, kernel);
    seconds += k.per_page_s + (s > 0 ? s + double(model::kHighEventsPerSleep) * k.per_event_s : k.per_event_s);
  }
  return seconds;
}

// The pages in use where this kernel (shift 0) starts to sleep, a batch
// below the counter at which it does: growth below it belongs to no sleep's
// cycle (the leak's run up to memory.high and past it).
uint64_t sleep_floor(uint64_t high, const model::Kernel& kernel) {
  auto start = model::sleep_start({.kernel = kernel, .high = high, .wheel = true});
  return start ? *start - std::min(*start, batch_bytes(kernel)) : UINT64_MAX;
}

// Adds a window's cycles to the bins and its time awake to the fit.
void close_window(ShiftEmulation& e) {
  const Window& w = e.window;
  if (w.sleeps > 0) {
    size_t bin = length_bin(w.s / w.sleeps);
    e.cycles_by_length[bin] += w.sleeps;
    e.cycle_s_by_length[bin] += w.s;
    e.fit = e.fit.plus(w.events, w.pages, w.awake);
  }
  e.window = {};
}

// The rate at which the cycles counted, binned by length (the open window
// too), meet as many drains as were measured: sum over bins of
// min(cycles, their time * rate) = drained, increasing in the rate, solved
// by bisection on its logarithm.
double drains_per_s(const ShiftEmulation& e, const model::Kernel& kernel) {
  const double drains = drained(e, kernel);
  if (e.sleeps < kMinSleeps || drains >= e.sleeps) return kNever;
  auto met = [&](double rate) {
    double n = 0;
    for (size_t b = 0; b < kLengthBins; ++b) n += std::min(e.cycles_by_length[b], e.cycle_s_by_length[b] * rate);
    return n + std::min(e.window.sleeps, e.window.s * rate);
  };
  double lo = std::log(1e-3), hi = std::log(1e5);  // drains per second
  for (int i = 0; i < 60; ++i) {
    double mid = (lo + hi) / 2;
    (met(std::exp(mid)) < drains ? lo : hi) = mid;
  }
  return std::exp(hi);
}

}  // namespace

double drained(const ShiftEmulation& e, const model::Kernel& kernel) {
  const double batch = kernel.batch;
  return std::clamp((batch * e.sleeps - e.grown_pages) / (batch - 1), 0.0, e.sleeps);
}

Costs costs(const ShiftEmulation& e, const model::Kernel& kernel) {
  Costs k{.drained = drained(e, kernel), .drains_per_s = drains_per_s(e, kernel)};
  // awake = c * events + a * pages, least squares over the windows (the
  // open one too), the intervals before the first sleep and those under
  // memory.high (no events: they give a alone).
  const Window& w = e.window;
  const Sums s = e.fit.plus(w.events, w.pages, w.awake).plus(e.own);
  double det = s.ee * s.pp - s.ep * s.ep;
  bool proportional = det <= 1e-9 * s.ee * s.pp;
  if (!proportional) {
    k.per_event_s = (s.we * s.pp - s.wp * s.ep) / det;
    k.per_page_s = (s.wp * s.ee - s.we * s.ep) / det;
  }
  // Events and pages in proportion (one page per sleep): the time is the
  // charges'. No events at all (only growth under memory.high): the pages'.
  if (proportional && s.ee > 0) k.per_event_s = s.we / s.ee, k.per_page_s = 0;
  if (proportional && s.ee <= 0) k.per_page_s = s.pp > 0 ? s.wp / s.pp : 0;
  if (k.per_event_s < 0) k.per_event_s = 0, k.per_page_s = s.pp > 0 ? s.wp / s.pp : 0;
  if (k.per_page_s < 0) k.per_page_s = 0, k.per_event_s = s.ee > 0 ? s.we / s.ee : 0;
  return k;
}

void under_high(ShiftEmulation& e, const Interval& i, const model::Kernel& kernel) {
  e = {.own = e.own};
  if (i.dt > 0 && i.to > i.from) e.own = e.own.plus(0, double(i.to - i.from) / double(kernel.page_size), i.dt);
}

void advance(ShiftEmulation& e, uint32_t shift, const Interval& i, uint64_t high, const model::Kernel& kernel) {
  const auto [from, to, dt, high_rise] = i;
  const bool first = !e.started;
  if (first) e = {.started = true, .start_usage = from, .own = e.own};
  const uint64_t low_before = first ? std::min(from, to) : e.low_usage;
  // The rest of a batch in the stock: at most 63 pages of memory.current.
  const uint64_t stock = uint64_t(kernel.batch - 1) * kernel.page_size;
  e.low_usage = std::max(std::min(from, to), to > stock ? to - stock : 0);
  if (dt <= 0) return;
  e.actual_s += dt;
  // The pages in use as this interval's sleeps began: between its two lows.
  const uint64_t used = std::midpoint(low_before, e.low_usage);
  // Sleeps counted where the pages in use midway do not sleep yet happened
  // near the interval's end.
  double plain = batch_sleep(used, 0, high, kernel);
  if (plain <= 0) plain = batch_sleep(e.low_usage, 0, high, kernel);
  double sleeps = plain > 0 ? double(high_rise) / double(model::kHighEventsPerSleep) : 0;
  // memory.events high rises as a sleep begins: a sleep longer than the
  // interval is asleep time in the intervals that follow too.
  e.owed_s += sleeps * plain;
  double asleep = std::min(dt, e.owed_s);
  e.owed_s -= asleep;
  double events = double(high_rise);
  // A window opens where the count of sleeps, rounded, rises (a sleep split
  // by a sample, 0.1 and then 0.9 of its events, opens one).
  double before = e.sleeps;
  e.sleeps += sleeps;
  if (sleeps > 0 && std::round(e.sleeps) > std::round(before)) close_window(e);
  const uint64_t floor = sleep_floor(high, kernel);
  double pages = (double(std::max(to, floor)) - double(std::max(from, floor))) / double(kernel.page_size);
  if (e.sleeps > 0) {
    e.grown_pages += pages;
    e.window = {e.window.sleeps + sleeps, e.window.s + dt, e.window.awake + (dt - asleep),
                e.window.events + events, e.window.pages + pages};
  } else {  // no sleep yet: the program's own time and the charges' reclaim passes, on their own
    double grown = to > from ? double(to - from) / double(kernel.page_size) : 0;
    e.fit = e.fit.plus(events, grown, dt);
  }
  // The charging time (sleeps and reclaim passes) scales with the shift;
  // the rest of the time awake does not. Reclaim passes longer than what is
  // left of the interval go on in the next ones, like a sleep.
  Costs k = costs(e, kernel);
  e.owed_reclaim_s += events * k.per_event_s;
  double reclaim = std::min(dt - asleep, e.owed_reclaim_s);
  e.owed_reclaim_s -= reclaim;
  double charging = asleep + reclaim;
  e.emulated_s += (dt - charging) + charging * charging_ratio(used, shift, k, high, kernel);
}

ShiftVerdict judge(const ShiftEmulation& e, uint32_t shift, uint64_t usage, uint64_t high, const Limit& max,
                   const model::Kernel& kernel) {
  ShiftVerdict v;
  Costs k = costs(e, kernel);
  v.costs = k;
  // The higher sample may count the rest of a batch in the stock: pages the
  // program has not used yet, which a drain gives back.
  const uint64_t used = e.started ? std::min(usage, e.low_usage) : usage;
  double s = batch_sleep(used, shift, high, kernel);
  v.sleeps_per_batch = s > 0 ? double(kernel.batch) * charging_per_page(used, shift, k, high, kernel) /
                                   (s + double(model::kHighEventsPerSleep) * k.per_event_s)
                             : 0;
  if (max.is_max()) {
    v.remaining_s = kNever;
  } else {
    // The sleep under way when sampled is still to come, scaled like the rest
    // (the kernel kills at the charge after it, even at memory.max).
    v.remaining_s = (e.owed_s + e.owed_reclaim_s) * charging_ratio(used, shift, k, high, kernel);
    if (used < max.bytes()) v.remaining_s += remaining_s(used, max.bytes(), shift, k, high, kernel);
  }
  v.budget_s = e.emulated_s + v.remaining_s;
  v.kill = e.started && e.actual_s > 0 && e.actual_s >= v.budget_s;
  return v;
}

std::optional<ShiftVerdict> step(ShiftEmulation& e, uint32_t shift, const Interval& i, const Limit& high,
                                 const Limit& max, const model::Kernel& kernel) {
  if (high.is_max() || i.to <= high.bytes()) {
    under_high(e, i, kernel);
    return std::nullopt;
  }
  advance(e, shift, i, high.bytes(), kernel);
  return judge(e, shift, i.to, high.bytes(), max, kernel);
}

}  // namespace cgmem::guard
