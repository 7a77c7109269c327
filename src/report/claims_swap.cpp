// The rows swap brings: what the study left open ("One host, one kernel, no
// swap ... With swap or zswap, reclaim can move anonymous pages out, so
// memory.high can hold a cgroup near the limit instead of only slowing it,
// and memory.max reaches the OOM killer later. We did not test that."),
// each judged on the runs with swap (meta.json host.swap_setting) against
// the same run without swap (swap_twin below).
//
// The kernel's rules they test, in mm/memcontrol.c (6.12):
//   - reclaim_high() and try_charge_memcg() reclaim with
//     MEMCG_RECLAIM_MAY_SWAP: with swap space, anonymous pages can go.
//   - mem_cgroup_handle_over_high() retries while reclaim frees pages and
//     sleeps only after 17 passes that freed nothing, so a task over
//     memory.high is reclaimed rather than put to sleep.
//   - at memory.max the OOM killer comes only when reclaim frees nothing:
//     once the swap charge fails at memory.swap.max
//     (__mem_cgroup_try_charge_swap raises memory.swap.events max and fail)
//     or the swap device is full (fail).
//   - swap_find_max_overage() adds memory.swap.high's own penalty (section
//     7 of predict.md).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "model/predict.h"
#include "report/claim_cases.h"
#include "report/swap_figures.h"
#include "report/swap_setting.h"

namespace cgmem::report::claims_detail {

namespace {

constexpr char kNoSwapInStudy[] = "not tested: the study ran without swap";

bool same_limit(const std::optional<Limit>& a, const std::optional<Limit>& b) {
  return is_set(a) == is_set(b) && (!is_set(a) || a->bytes() == b->bytes());
}

// One workload under the same limits on the same kernel: what the swap
// setting alone can change.
bool same_run(const Meta& a, const Meta& b) {
  return a.kernel == b.kernel && a.hz == b.hz && same_limit(a.high, b.high) && same_limit(a.max, b.max) &&
         a.chunk_bytes == b.chunk_bytes && a.target_bytes == b.target_bytes && a.procs == b.procs &&
         a.populate == b.populate && a.own_code == b.own_code && a.own_code_bytes == b.own_code_bytes &&
         a.file == b.file && a.set_own_high == b.set_own_high && a.neighbour_ms == b.neighbour_ms &&
         a.neighbours == b.neighbours && a.command == b.command;
}

// "+1.4%", "-0.3%": how far over (or under) memory.high.
std::string signed_percent(std::optional<double> share) {
  return share ? fmt::format("{:+.1f}%", *share * 100) : "-";
}
std::string whole_number(std::optional<double> v) { return num_fixed(v, 0); }

std::optional<double> as_bytes(std::optional<uint64_t> v) {
  return v ? std::optional(static_cast<double>(*v)) : std::nullopt;
}

model::Kernel hz_kernel(const Meta& m) {
  return {.hz = static_cast<uint32_t>(m.hz), .page_size = m.page_size};
}

// memory.high holds usage ------------------------------------------------

// (usage - memory.high) / memory.high.
std::optional<double> over_high(const Case& x, std::optional<double> usage) {
  if (!usage) return std::nullopt;
  double high = static_cast<double>(x.meta().high->bytes());
  return (*usage - high) / high;
}

// Where the formula first sleeps for one batch: the usage memory.high holds
// a task under when no sleep comes.
std::optional<double> sleep_start(const Case& x) {
  if (x.meta().hz <= 0) return std::nullopt;
  auto start = model::sleep_start({.kernel = hz_kernel(x.meta()), .high = x.meta().high->bytes()});
  return start ? over_high(x, static_cast<double>(*start)) : std::nullopt;
}

std::optional<double> held(const Case& x) { return over_high(x, held_usage(*x.run)); }
std::optional<double> sleeps_at_most(const Case& x) {
  return static_cast<double>(x.sum->events_high / model::kHighEventsPerSleep);
}
std::optional<double> asleep(const Case& x) { return throttle_asleep_share(*x.run); }
std::optional<double> peak(const Case& x) { return as_bytes(peak_swap(*x.run)); }

Claim high_holds(const Cases& all, const Cases& batch) {
  Claim c{.id = "swap-high-holds",
          .claim = "with swap, memory.high holds a cgroup near it by swapping out, instead of throttling it",
          .study = fmt::format("{} (\"memory.high can hold a cgroup near the limit instead of only slowing it ... "
                               "We did not test that.\")",
                               kNoSwapInStudy)};
  auto cases = select(all, [](const Case& x) {
    const Meta& m = x.meta();
    return with_swap(m) && has_high(m) && !has_max(m) && plain_anon(m) && over(m) && held(x);
  });
  if (cases.empty()) {
    c.note = "a run with swap under memory.high alone whose workload needs more (cgmem run --high 30195712 -- "
             "--target 40M --churn 200, on a host or in a VM with swap)";
    return c;
  }
  bool ok = std::all_of(cases.begin(), cases.end(), [](const Case& x) {
    return peak(x).value_or(0) > 0 && sleep_start(x) && *held(x) < *sleep_start(x);
  });
  c.batch = fmt::format("memory.current at memory.high {} (the median over each run's last half; the formula sleeps "
                        "from {}); swap.current up to {}; sleeps at most {} (high events / 17), asleep in the throttle "
                        "in {} of samples ({})",
                        span(cases, held, signed_percent), span(cases, sleep_start, signed_percent),
                        span(cases, peak, mib), span(cases, sleeps_at_most, whole_number), span(cases, asleep, percent),
                        runs_of(cases.size()));
  if (int n = with_twin(cases, batch))
    c.batch += fmt::format("; without swap at memory.high {}, sleeps at most {}, asleep {} ({})",
                           twin_span(cases, batch, held, signed_percent), twin_span(cases, batch, sleeps_at_most, whole_number),
                           twin_span(cases, batch, asleep, percent), runs_of(static_cast<size_t>(n)));
  c.verdict = ok ? ClaimVerdict::reproduced : ClaimVerdict::not_reproduced;
  c.note = "test: every run swapped out (memory.swap.current above 0) and its median memory.current over its last "
           "half stayed below the usage where the formula first sleeps for a batch. reclaim_high() reclaims with "
           "MEMCG_RECLAIM_MAY_SWAP and mem_cgroup_handle_over_high() retries while reclaim frees pages (mm/memcontrol.c, "
           "6.12), so with swap a task over memory.high is reclaimed rather than put to sleep; the sleeps are at most "
           "the high events / 17, as a pass that freed pages raises the counter without a sleep.";
  if (!ok) c.note += " Not held: the runs above the formula's start still throttled, which the sleeps and the share asleep show.";
  return c;
}

// memory.max kills once swap is full ------------------------------------------

// Where the excess over memory.max can go: memory.swap.max, within the host's
// swap; the host's swap when memory.swap.max is unset.
std::optional<double> swap_room(const Meta& m) {
  auto host = as_bytes(m.swap.total_bytes);
  if (!is_set(m.swap_max)) return host;
  double limit = static_cast<double>(m.swap_max->bytes());
  return host ? std::min(limit, *host) : limit;
}

std::optional<double> excess(const Case& x) {
  return static_cast<double>(x.meta().target_bytes) - static_cast<double>(x.meta().max->bytes());
}

bool kill_expected(const Case& x) { return *excess(x) > *swap_room(x.meta()); }

// Swap was full at the kill: memory.swap.events max or fail rose, or, where
// the samples have no memory.swap.events, swap.current reached 90% of its
// room. With no room at all (memory.swap.max 0) it is full from the start:
// reclaim then leaves anonymous pages alone (mem_cgroup_get_nr_swap_pages()
// is 0, mm/memcontrol.c, 6.12), so no swap charge fails and neither counter
// rises.
bool swap_full(const Case& x) {
  if (swap_room(x.meta()).value_or(1) == 0) return true;
  auto events = last_swap_events(*x.run);
  if (!events.empty()) return events["max"] + events["fail"] > 0;
  return peak(x).value_or(0) >= 0.9 * *swap_room(x.meta());
}

bool kill_as_expected(const Case& x) { return kill_expected(x) ? killed(x) && swap_full(x) : !killed(x); }

std::optional<double> kill_s(const Case& x) { return x.sum->time_to_kill_s; }
std::optional<double> duration(const Case& x) { return x.sum->duration_s; }

std::string max_kill_part(const Cases& cases, const Cases& batch, bool swap_max_set) {
  auto sub = select(cases, [&](const Case& x) { return is_set(x.meta().swap_max) == swap_max_set; });
  if (sub.empty()) return "";
  auto room = [](const Case& x) { return swap_room(x.meta()); };
  std::vector<std::string> said = {swap_max_set
                                       ? fmt::format("memory.swap.max {}", span(sub, room, mib))
                                       : fmt::format("memory.swap.max unset, host swap {}", span(sub, room, mib))};
  said.back() += fmt::format(" against an excess of {}", span(sub, excess, mib));
  auto dead = select(sub, killed);
  auto alive = select(sub, [](const Case& x) { return !killed(x); });
  if (!dead.empty())
    said.push_back(fmt::format("killed {} at {} s, swap full at the kill in {}", of(static_cast<int>(dead.size()), sub.size()),
                               span(dead, kill_s), of(count(dead, swap_full), dead.size())));
  if (!alive.empty())
    said.push_back(fmt::format("not killed in {} s {}", span(alive, duration), of(static_cast<int>(alive.size()), sub.size())));
  said.push_back(fmt::format("swap.current up to {}", span(sub, peak, mib)));
  if (with_twin(sub, batch)) said.push_back(fmt::format("without swap killed at {} s", twin_span(sub, batch, kill_s)));
  return fmt::format("{}", fmt::join(said, ", "));
}

Claim max_kill(const Cases& all, const Cases& batch) {
  Claim c{.id = "swap-max-kill",
          .claim = "with swap, memory.max kills only once swap is full: at memory.swap.max, or not at all while the "
                   "host's swap holds the excess",
          .study = fmt::format("{} (memory.max alone killed 0.28 to 0.39 s after the start)", kNoSwapInStudy)};
  auto candidates = select(all, [](const Case& x) {
    const Meta& m = x.meta();
    return with_swap(m) && has_max(m) && !has_high(m) && plain_anon(m) && over(m);
  });
  auto cases = select(candidates, [](const Case& x) { return swap_room(x.meta()).has_value(); });
  std::string unknown = left_out(candidates.size() - cases.size(), "with neither memory.swap.max nor host.swap_total_bytes");
  if (cases.empty()) {
    c.note = "a run with swap under memory.max alone whose workload needs more, with memory.swap.max set (cgmem run "
             "--max 32M --swap-max 8M -- --target 48M), and one without --swap-max." + unknown;
    return c;
  }
  std::vector<std::string> parts;
  for (bool set : {true, false})
    if (auto part = max_kill_part(cases, batch, set); !part.empty()) parts.push_back(part);
  c.batch = fmt::format("{}", fmt::join(parts, "; "));
  c.verdict = std::all_of(cases.begin(), cases.end(), kill_as_expected) ? ClaimVerdict::reproduced
                                                                        : ClaimVerdict::not_reproduced;
  c.note = "test: a run whose excess (its target less memory.max) is more than its swap room (memory.swap.max, within "
           "the host's swap; the host's swap without it) is killed, with swap full (memory.swap.events max or fail "
           "above 0; swap.current at 90% of the room where the samples have no memory.swap.events); any other is not "
           "killed within its cap. try_charge_memcg() reclaims to swap at memory.max and calls the OOM killer only "
           "when reclaim frees nothing (mm/memcontrol.c, 6.12), which comes once the swap charge fails at "
           "memory.swap.max (__mem_cgroup_try_charge_swap raises max and fail) or the device is full (fail)." +
           unknown;
  return c;
}

}  // namespace

const Case* swap_twin(const Case& x, const Cases& batch) {
  const Case* found = nullptr;
  for (const auto& y : batch) {
    if (!without_swap(y.meta()) || !same_run(x.meta(), y.meta())) continue;
    if (y.run->rep == x.run->rep) return &y;
    if (!found) found = &y;
  }
  return found;
}

std::vector<Claim> claims_about_swap_limits(const Cases& all, const Cases& batch) {
  return {high_holds(all, batch), max_kill(all, batch)};
}

}  // namespace cgmem::report::claims_detail
