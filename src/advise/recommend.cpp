#include "advise/recommend.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "common/duration.h"
#include "model/predict.h"

namespace cgmem::advise {
namespace {

// Rounded up to a page; the product of a size and a percentage carries
// floating-point noise far below a byte (200 MiB x 1.1 gave a byte more).
uint64_t page_up(double bytes, uint64_t page) {
  uint64_t b = static_cast<uint64_t>(std::ceil(bytes - 1e-3));
  return (b + page - 1) / page * page;
}

model::Throttle throttle(const Advice& a, uint64_t high, double k, int procs) {
  return {.kernel = {.hz = a.hz, .batch = a.rules.charge_batch, .page_size = a.page_size, .rules = a.rules},
          .high = high,
          .sleeps_per_batch = k,
          .procs = static_cast<uint32_t>(std::max(1, procs))};
}

// Seconds asleep from memory.high to memory.max at k sleeps per batch.
double climb(const Advice& a, uint64_t high, double k, int procs) {
  return model::grow(throttle(a, high, k, procs), high, a.memory_max_bytes).seconds;
}

// The lowest page-aligned memory.high in [lowest, memory.max) that sleeps
// below memory.max and whose per-page climb fits in the crawl; the climb
// shortens as memory.high rises, so a bisection finds it.
void choose_high(Advice& a, uint64_t lowest, const Options& o, int procs) {
  const uint64_t page = a.page_size, max = a.memory_max_bytes;
  const double per_page = a.rules.charge_batch;
  auto sleeps_below_max = [&](uint64_t h) {
    auto start = model::sleep_start(throttle(a, h, per_page, procs));
    return start && *start < max;
  };
  if (lowest >= max || !sleeps_below_max(lowest)) {
    // The kernel's first sleep: where the batch's penalty passes HZ / 100.
    auto start = model::sleep_start(throttle(a, lowest, per_page, procs));
    a.memory_high_reason = fmt::format(
        "none: a memory.high of {} (the working set + {:g}%) first sleeps at {}, not below memory.max {}: it would "
        "only reclaim; raise --headroom to make room for it",
        format_bytes(lowest), o.high_margin * 100, start ? format_bytes(*start) : "no usage", format_bytes(max));
    return;
  }
  uint64_t lo = lowest / page, hi = (max - 1) / page;  // in pages; hi: the highest below memory.max
  if (climb(a, lo * page, per_page, procs) > o.crawl_s) {
    // Find the lowest that fits, among those that still sleep.
    while (lo < hi) {
      uint64_t mid = lo + (hi - lo) / 2;
      if (climb(a, mid * page, per_page, procs) <= o.crawl_s) hi = mid;
      else lo = mid + 1;
    }
    if (!sleeps_below_max(lo * page) || climb(a, lo * page, per_page, procs) > o.crawl_s) {
      a.memory_high_reason = fmt::format(
          "none: from every memory.high that still sleeps below memory.max {}, a runaway program at one sleep per "
          "page crawls longer than --crawl {} before the kill; memory.max alone kills it at once",
          format_bytes(max), format_duration(o.crawl_s, DurationStyle::prose));
      return;
    }
  }
  a.memory_high_bytes = lo * page;
  a.climb_per_page_s = climb(a, lo * page, per_page, procs);
  a.climb_per_batch_s = climb(a, lo * page, 1, procs);
  a.memory_high_reason = fmt::format(
      "{} over the working set: a runaway program climbs from it to memory.max in {} at one sleep per page "
      "({} at one per batch), within --crawl {}",
      format_bytes(lo * page - std::min(lo * page, a.working_set_bytes)), format_duration(*a.climb_per_page_s, DurationStyle::prose),
      format_duration(*a.climb_per_batch_s, DurationStyle::prose), format_duration(o.crawl_s, DurationStyle::prose));
}

std::optional<Leak> leak_of(const Advice& a, const Usage& u) {
  const bool grew = u.growing && u.growth_bytes_per_s > 0;
  if (!grew && !u.alloc_rate) return std::nullopt;
  const double g = grew ? u.growth_bytes_per_s : *u.alloc_rate * u.procs;
  if (!(g > 0)) return std::nullopt;
  Leak l{.basis = grew ? "growth" : "alloc_rate", .growth_bytes_per_s = g};
  const double ws = static_cast<double>(a.working_set_bytes), max = static_cast<double>(a.memory_max_bytes);
  if (!a.memory_high_bytes) {
    l.seconds_to_kill_per_batch = l.seconds_to_kill_per_page = std::max(0.0, max - ws) / g;
    return l;
  }
  const double high = static_cast<double>(*a.memory_high_bytes);
  l.seconds_to_high = std::max(0.0, high - ws) / g;
  // Its own allocation at the growth, and the sleeps, over the climb.
  const double own = *l.seconds_to_high + (max - high) / g;
  l.seconds_to_kill_per_batch = own + *a.climb_per_batch_s;
  l.seconds_to_kill_per_page = own + *a.climb_per_page_s;
  return l;
}

}  // namespace

Advice recommend(const Usage& u, const std::vector<uint64_t>& peaks, const Options& o) {
  Advice a{.working_set_bytes = u.working_set,
           .peak_current_bytes = u.peak_current,
           .kernel = u.kernel,
           .hz = o.hz.value_or(u.hz),
           .page_size = u.page_size};
  a.rules = model::rules_for(model::parse_kernel_version(u.kernel).value_or(model::default_rules().version));
  const double ws = static_cast<double>(u.working_set);
  a.memory_max_bytes = std::max(page_up(ws * (1 + o.headroom), a.page_size), a.page_size);
  a.memory_max_reason = fmt::format("the working set {} + {:g}% headroom, rounded up to a page", format_bytes(u.working_set),
                                    o.headroom * 100);
  a.slack_bytes = a.memory_max_bytes - std::min(a.memory_max_bytes, u.working_set);
  choose_high(a, page_up(ws * (1 + o.high_margin), a.page_size), o, u.procs);

  a.vpa = vpa::recommend(peaks);
  a.vpa_slack_bytes = static_cast<int64_t>(a.vpa.target_bytes) - static_cast<int64_t>(u.working_set);

  const model::CgroupLimits limits{
      .high = a.memory_high_bytes ? Limit::of(*a.memory_high_bytes) : Limit::max(), .max = Limit::of(a.memory_max_bytes)};
  const model::VerdictInput base{.alloc_rate = u.alloc_rate, .hz = a.hz, .page_size = a.page_size,
                                    .op_bytes = u.op_bytes, .host_swap = o.host_swap.value_or(u.host_swap)};
  for (auto [label, factor] : {std::pair{"working set", 1.0}, {"+10%", 1.10}, {"+25%", 1.25}}) {
    model::VerdictInput in = base;
    in.working_set = static_cast<uint64_t>(ws * factor);
    a.predictions.push_back({.label = label, .working_set = in.working_set,
                             .verdict = model::verdict(limits, in)});
  }
  a.leak = leak_of(a, u);

  a.regime = fmt::format("on {} ({} stock slot{}): one sleep {}; else one per batch",
                         model::version_text(a.rules.version), a.rules.stock_slots, a.rules.stock_slots == 1 ? "" : "s",
                         a.rules.per_page_rule());
  if (u.growing)
    a.notes.push_back(fmt::format(
        "the working set still grew at the end ({}/s over the second half): its peak is not the program's working "
        "set; record a longer run, or read the leak's time to the kill below",
        format_bytes(static_cast<uint64_t>(u.growth_bytes_per_s))));
  a.page_cache_outside_bytes = u.peak_current - std::min(u.peak_current, u.working_set);
  if (a.page_cache_outside_bytes > kPageCacheShare * ws)
    a.notes.push_back(fmt::format(
        "memory.current peaked at {}, {} of it inactive page cache the kernel reclaims first: the working set "
        "leaves it out, as cAdvisor and the VPA do; a program that reads it again slows down under these limits "
        "(its cache is reclaimed and read back), which usage alone cannot tell: --page-cache sets the limits from "
        "memory.current",
        format_bytes(u.peak_current), format_bytes(a.page_cache_outside_bytes)));
  if (base.host_swap == 0)
    a.notes.push_back("no swap on the host the usage comes from: memory.high alone would never stop a leak, so memory.max is always set");
  if (a.vpa.at_minimum)
    a.notes.push_back("the VPA rule's target is its 250 MiB floor: it would give this program far more than it uses");
  return a;
}

}  // namespace cgmem::advise
