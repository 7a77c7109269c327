#include "guard/decide.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "common/duration.h"
#include "watch/render.h"

namespace cgmem::guard {

std::string_view verb_name(Verb v) {
  switch (v) {
    case Verb::kill: return "kill";
    case Verb::raise_high: return "raise-high";
    case Verb::restore: return "restore";
    case Verb::report: break;
  }
  return "report";
}

namespace {

using watch::Row;
using watch::State;

std::string seconds(double s) { return format_duration(s, DurationStyle::compact); }

// memory.current at the previous sample (the rates' interval start).
uint64_t previous_current(const Row& row) {
  double before = double(row.sample.current) - row.rates.growth_bytes_per_s * row.rates.dt_s;
  return before > 0 ? uint64_t(std::llround(before)) : 0;
}

// Starts, continues or ends an episode of `in`; returns its length so far,
// or nullopt when there is none. It starts at the previous sample (the
// interval showed the state) and ends after kEpisodeGap without the state.
std::optional<double> episode(bool in, double& since, double& seen, double now, const Row& row,
                              bool* started = nullptr) {
  if (in) {
    if (since < 0) {
      since = now - row.rates.dt_s;
      if (started) *started = true;
    }
    seen = now;
  } else if (since >= 0 && now - seen > kEpisodeGap) {
    since = -1;
  }
  if (since < 0) return std::nullopt;
  return now - since;
}

// memory.swap.current over memory.swap.high: the kernel adds the swap term to
// the sleep (mm/memcontrol.c, mem_cgroup_handle_over_high), so the cgroup is
// throttled even under memory.high.
bool over_swap_high(const Row& row) { return row.reasons & watch::kOverSwapHigh; }

bool over_memory_high(const watch::Sample& s) { return !s.high.is_max() && s.current > s.high.bytes(); }

// "memory.current A over memory.high B", and/or the same of swap where its term applies.
std::string over_limits(const Row& row) {
  const watch::Sample& s = row.sample;
  std::string memory = fmt::format("memory.current {} over memory.high {}", format_bytes(s.current), format_limit(s.high));
  if (!over_swap_high(row)) return memory;
  std::string swap = fmt::format("memory.swap.current {} over memory.swap.high {}", format_bytes(s.swap_current),
                                 format_limit(s.swap_high));
  return over_memory_high(s) ? memory + " and " + swap : swap;
}

uint64_t raised(const RaiseHigh& r, uint64_t high) {
  uint64_t step = r.step_bytes ? r.step_bytes : uint64_t(double(high) * r.step_percent / 100);
  return high > UINT64_MAX - step ? UINT64_MAX : high + std::max<uint64_t>(step, 1);
}

}  // namespace

std::vector<Decision> Guard::observe(std::span<const Row> rows) {
  std::vector<Decision> out;
  for (const Row& row : rows) {
    if (row.state == State::gone) {
      tracks_.erase(row.id);
      continue;
    }
    // Unknown: memory.current, .high or .max could not be read as a number,
    // and no decision is made on values that are no facts.
    if (row.path == "/" || row.rates.dt_s <= 0 || row.state == State::unknown) continue;
    const Rule* rule = rule_for(policy_, row.path);
    if (!rule) continue;
    if (auto d = decide(*rule, row, tracks_[row.id], double(row.sample.t_ns) / 1e9)) out.push_back(std::move(*d));
  }
  return out;
}

std::optional<Decision> Guard::decide(const Rule& rule, const Row& row, Track& t, double now) {
  const watch::Sample& s = row.sample;
  Decision d{.rule = &rule, .row = &row};
  bool started = false;
  auto throttled = episode(row.state == State::throttled, t.throttled_since, t.throttled_seen, now, row, &started);
  // Growth below memory.high was never throttled: a program that fits and
  // crossed it within the first interval has grown only what lies above.
  // Over memory.swap.high it was: the swap term puts it to sleep anywhere.
  if (started)
    t.rise_from = s.high.is_max() || over_swap_high(row) ? previous_current(row)
                                                         : std::max(previous_current(row), s.high.bytes());
  auto thrash = episode(row.state == State::thrashing, t.thrash_since, t.thrash_seen, now, row);
  d.evidence.throttled_s = throttled;
  d.evidence.thrash_s = thrash;
  switch (rule.action) {
    case Action::kill:
    case Action::report: return decide_kill(std::move(d), t, now);
    case Action::emulate_shift: return decide_shift(std::move(d), t, now);
    case Action::raise_high: return decide_raise(std::move(d), t, now);
  }
  return std::nullopt;
}

// kill and report: a throttled or thrashing episode as long as the rule's,
// a crawl to memory.max slower than the rule's, or (report with no
// condition) any state worth a line.
std::optional<Decision> Guard::decide_kill(Decision d, Track& t, double now) const {
  const Rule& rule = *d.rule;
  const Row& row = *d.row;
  const watch::Sample& s = row.sample;
  const Conditions& c = rule.when;
  const std::optional<double>& throttled = d.evidence.throttled_s;
  const std::optional<double>& thrash = d.evidence.thrash_s;
  if (now < t.quiet_until) return std::nullopt;
  d.verb = rule.action == Action::kill ? Verb::kill : Verb::report;
  if (throttled && s.current > t.rise_from) {
    uint64_t rise = s.current - t.rise_from;
    d.evidence.rise = rise;
    double growth = *throttled > 0 ? double(rise) / *throttled : 0;
    if (growth > 0)
      d.evidence.eta_s = s.max.is_max() ? std::numeric_limits<double>::infinity()
                         : s.current >= s.max.bytes() ? 0
                                                      : double(s.max.bytes() - s.current) / growth;
  }
  if (c.throttled_for_s && throttled && *throttled >= *c.throttled_for_s) {
    d.why = fmt::format("throttled for {} (rule: {}), {}", seconds(*throttled), seconds(*c.throttled_for_s),
                        over_limits(row));
  } else if (c.eta_over_s && d.evidence.rise && *d.evidence.rise >= c.min_rise && d.evidence.eta_s &&
             *d.evidence.eta_s > *c.eta_over_s) {
    d.why = fmt::format("grew {} in {} over {}: memory.max {} at that rate (rule: over {}): it will crawl",
                        format_bytes(*d.evidence.rise), seconds(*throttled),
                        over_swap_high(row) && !over_memory_high(s) ? "memory.swap.high" : "memory.high",
                        s.max.is_max() ? "never" : "in " + seconds(*d.evidence.eta_s), seconds(*c.eta_over_s));
  } else if (c.thrash_for_s && thrash && *thrash >= *c.thrash_for_s) {
    d.why = fmt::format("thrashing for {} (rule: {}): file refaults {:.0f} pages/s, io PSI some {:.0f}%, memory PSI some {:.0f}%",
                        seconds(*thrash), seconds(*c.thrash_for_s), row.rates.refault_file_per_s,
                        row.rates.io_some * 100, row.rates.memory_some * 100);
  } else if (rule.action == Action::report && !c.any() &&
             (row.state == State::throttled || row.state == State::thrashing || row.state == State::swapping ||
              row.state == State::at_max || row.state == State::oom_killed)) {
    d.why = fmt::format("{}", watch::state_name(row.state));
  } else {
    return std::nullopt;
  }
  return d;
}

// emulate-shift: kill where the RFC's memory.high.throttle = S would have
// let the program reach memory.max by now.
std::optional<Decision> Guard::decide_shift(Decision d, Track& t, double now) const {
  const Rule& rule = *d.rule;
  const Row& row = *d.row;
  const watch::Sample& s = row.sample;
  if (now < t.quiet_until) return std::nullopt;
  // The emulation has the memory term only (src/model's growth has no
  // swap level); an interval the swap term throttles under memory.high
  // is not the program's own pace either.
  if (over_swap_high(row) && !over_memory_high(s)) return std::nullopt;
  const Interval interval{
      .from = previous_current(row), .to = s.current, .dt = row.rates.dt_s, .high_rise = row.rates.rise.high};
  auto verdict = step(t.emulation, rule.shift, interval, s.high, s.max, kernel_);
  if (!verdict) return std::nullopt;
  const ShiftVerdict& v = *verdict;
  d.evidence.shift = v;
  d.evidence.emulation = t.emulation;
  if (!v.kill) return std::nullopt;
  d.verb = Verb::kill;
  d.why = fmt::format("over memory.high for {}; with memory.high.throttle = {} the kernel would have reached "
                      "memory.max after {} ({} emulated + {} to go at {:.1f} sleeps per batch)",
                      seconds(t.emulation.actual_s), rule.shift, seconds(v.budget_s),
                      seconds(t.emulation.emulated_s), seconds(v.remaining_s), v.sleeps_per_batch);
  return d;
}

// raise-high: memory.high up a step (with back-off, to a ceiling) while
// throttled; back to what was found once usage stays under it.
std::optional<Decision> Guard::decide_raise(Decision d, Track& t, double now) const {
  const Rule& rule = *d.rule;
  const Row& row = *d.row;
  const watch::Sample& s = row.sample;
  const Conditions& c = rule.when;
  const std::optional<double>& throttled = d.evidence.throttled_s;
  if (s.high.is_max()) return std::nullopt;
  uint64_t high = s.high.bytes();
  d.expected_high = s.high;
  // Restore: usage back under the memory.high found before the first raise.
  if (t.original_high && !throttled && s.high != *t.original_high && s.current < t.original_high->bytes()) {
    if (t.under_since < 0) t.under_since = now - row.rates.dt_s;
    double under = now - t.under_since;
    d.evidence.under_s = under;
    if (under < rule.raise.restore_after_s) return std::nullopt;
    d.verb = Verb::restore;
    d.new_high = *t.original_high;
    d.why = fmt::format("memory.current {} under the original memory.high {} for {} (rule: {}): restore it",
                        format_bytes(s.current), format_limit(*t.original_high), seconds(under),
                        seconds(rule.raise.restore_after_s));
    return d;
  }
  t.under_since = -1;
  if (!throttled || *throttled < c.throttled_for_s.value_or(0) || now < t.next_raise) return std::nullopt;
  // Throttled by the swap term alone: a higher memory.high would not end it.
  if (over_swap_high(row) && !over_memory_high(s)) return std::nullopt;
  Limit ceiling = rule.raise.ceiling ? Limit::of(*rule.raise.ceiling) : s.max;
  if (ceiling.is_max()) return std::nullopt;  // no ceiling given and no memory.max: never raise
  uint64_t target = std::min(raised(rule.raise, high), ceiling.bytes());
  target -= target % kernel_.page_size;
  if (target <= high) return std::nullopt;  // at the ceiling
  d.verb = Verb::raise_high;
  d.new_high = Limit::of(target);
  d.why = fmt::format("throttled for {} (rule: {}): memory.high {} -> {} (ceiling {}, raise {} in a row)",
                      seconds(*throttled), seconds(c.throttled_for_s.value_or(0)), format_bytes(high),
                      format_bytes(target), format_limit(ceiling), t.raises + 1);
  return d;
}

void Guard::done(const Decision& d, double now_s, bool acted) {
  auto it = tracks_.find(d.row->id);
  if (it == tracks_.end()) return;
  Track& t = it->second;
  switch (d.verb) {
    case Verb::kill:
    case Verb::report:
      t.quiet_until = now_s + policy_.limits.per_cgroup_s;
      if (acted && d.verb == Verb::kill) t.throttled_since = t.thrash_since = -1, t.emulation = {};
      break;
    case Verb::raise_high:
      if (!t.original_high) t.original_high = d.expected_high;
      t.raises = std::min<uint32_t>(t.raises + 1, 20);
      t.next_raise = now_s + d.rule->raise.backoff_s * double(1u << (t.raises - 1));
      break;
    case Verb::restore:
      if (acted) t.original_high.reset(), t.raises = 0;
      t.under_since = -1;
      t.next_raise = now_s + d.rule->raise.backoff_s;
      break;
  }
}

}  // namespace cgmem::guard
