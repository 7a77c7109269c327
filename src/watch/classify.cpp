#include "watch/classify.h"

#include <algorithm>
#include <array>

#include "model/penalty.h"

namespace cgmem::watch {
namespace {

uint64_t rise(uint64_t before, uint64_t after) { return after > before ? after - before : 0; }

double share(uint64_t before_usec, uint64_t after_usec, double dt_s) {
  double s = double(rise(before_usec, after_usec)) / 1e6 / dt_s;
  return s > 1 ? 1 : s;
}

Events event_rises(const Events& a, const Events& b) {
  return {.low = rise(a.low, b.low),
          .high = rise(a.high, b.high),
          .max = rise(a.max, b.max),
          .oom = rise(a.oom, b.oom),
          .oom_kill = rise(a.oom_kill, b.oom_kill),
          .oom_group_kill = rise(a.oom_group_kill, b.oom_group_kill)};
}

SwapEvents swap_event_rises(const SwapEvents& a, const SwapEvents& b) {
  return {.high = rise(a.high, b.high), .max = rise(a.max, b.max), .fail = rise(a.fail, b.fail)};
}

// Pages/s of one memory.stat counter, 0 unless both samples had its key.
double key_rate(const Sample& a, const Sample& b, StatKey key, uint64_t Sample::*counter, double dt_s) {
  if (!(a.stat_keys & b.stat_keys & key)) return 0;
  return double(rise(a.*counter, b.*counter)) / dt_s;
}

// Swap-ins and swap-outs, pages/s (Rates::swapin_per_s, swapout_per_s),
// over the span of the full reads, dt_s.
void swap_rates(Rates& r, const Sample& a, const Sample& b, double dt_s) {
  double zswpin = key_rate(a, b, kZswpin, &Sample::zswpin, dt_s);
  r.pswpin = a.stat_keys & b.stat_keys & kPswpin;
  r.swapin_per_s = r.pswpin ? key_rate(a, b, kPswpin, &Sample::pswpin, dt_s) + zswpin : r.refault_anon_per_s;
  r.swapout_per_s = key_rate(a, b, kPswpout, &Sample::pswpout, dt_s) + key_rate(a, b, kZswpout, &Sample::zswpout, dt_s);
  if (a.has(File::swap_current) && b.has(File::swap_current))
    r.swap_growth_bytes_per_s = (double(b.swap_current) - double(a.swap_current)) / dt_s;
  r.swap_rise = swap_event_rises(a.swap_events, b.swap_events);
  r.swap_high_per_s = double(r.swap_rise.high) / dt_s;
}

// The rates of the files a quiet read carries (memory.stat, the PSI files,
// the swap files), over the span between the two full reads behind them.
void full_read_rates(Rates& r, const Sample& a, const Sample& b, double dt_s) {
  r.pgsteal_per_s = double(rise(a.pgsteal, b.pgsteal)) / dt_s;
  r.refault_anon_per_s = double(rise(a.refault_anon, b.refault_anon)) / dt_s;
  r.refault_file_per_s = double(rise(a.refault_file, b.refault_file)) / dt_s;
  r.refaults_per_s = r.refault_anon_per_s + r.refault_file_per_s;
  r.pgfault_per_s = double(rise(a.pgfault, b.pgfault)) / dt_s;
  r.pgmajfault_per_s = double(rise(a.pgmajfault, b.pgmajfault)) / dt_s;
  r.memory_some = share(a.memory.some_usec, b.memory.some_usec, dt_s);
  r.memory_full = share(a.memory.full_usec, b.memory.full_usec, dt_s);
  r.io_some = share(a.io.some_usec, b.io.some_usec, dt_s);
  r.io_full = share(a.io.full_usec, b.io.full_usec, dt_s);
  swap_rates(r, a, b, dt_s);
}

// The Reason bits of the values that are no facts: memory.current must be
// read; memory.high and memory.max may be missing (the root), not garbage.
uint32_t unknown_values(const Sample& s) {
  uint32_t why = 0;
  if (s.unreadable & bit(File::current)) why |= kCurrentUnreadable;
  else if (!s.has(File::current)) why |= kCurrentMalformed;
  if (s.unreadable & bit(File::high)) why |= kHighUnreadable;
  if (s.malformed & bit(File::high)) why |= kHighMalformed;
  if (s.unreadable & bit(File::max)) why |= kMaxUnreadable;
  if (s.malformed & bit(File::max)) why |= kMaxMalformed;
  return why;
}

}  // namespace

std::string_view state_name(State s) {
  static constexpr std::array<std::string_view, kStateCount> kNames = {
      "ok",        "near_high", "reclaiming", "at_max", "swapping",
      "thrashing", "throttled", "oom_killed", "gone",   "unknown"};
  return kNames[static_cast<size_t>(s)];
}

int severity(State s) {
  switch (s) {
    case State::gone: return -1;
    case State::ok: return 0;
    case State::unknown: return 1;
    case State::near_high: return 2;
    case State::reclaiming: return 3;
    case State::at_max: return 4;
    case State::swapping: return 5;
    case State::thrashing: return 6;
    case State::throttled: return 7;
    case State::oom_killed: return 8;
  }
  return 0;
}

Rates rates_between(const Sample& a, const Sample& b) {
  Rates r;
  if (b.t_ns <= a.t_ns) return r;
  r.dt_s = double(b.t_ns - a.t_ns) / 1e9;
  // Both carry the same full read: the carried files did not move between them.
  if (b.full_read_ns() > a.full_read_ns()) full_read_rates(r, a, b, double(b.full_read_ns() - a.full_read_ns()) / 1e9);
  r.rise = event_rises(a.local, b.local);
  uint64_t all_kills = rise(a.events.oom_kill, b.events.oom_kill);
  r.descendant_oom_kill = all_kills > r.rise.oom_kill ? all_kills - r.rise.oom_kill : 0;
  r.high_per_s = double(r.rise.high) / r.dt_s;
  r.max_per_s = double(r.rise.max) / r.dt_s;
  // memory.swap.events has no .local: its passes are this cgroup's own only
  // while it is over its own memory.swap.high (the kernel counts a pass at
  // each level over it, and on every ancestor of that level).
  double own_swap_high_per_s = b.over_swap_high() ? r.swap_high_per_s : 0;
  r.sleeps_per_s = std::max(r.high_per_s, own_swap_high_per_s) / double(model::kHighEventsPerSleep);
  if (a.has(File::current) && b.has(File::current))  // no growth from or to a value not read
    r.growth_bytes_per_s = (double(b.current) - double(a.current)) / r.dt_s;
  return r;
}

namespace {

// The evidence of levels: what memory.current and memory.swap.current are
// against their limits.
uint32_t level_reasons(const Sample& now, const Thresholds& t) {
  uint32_t why = 0;
  if (!now.high.is_max() && now.current > now.high.bytes()) why |= kOverHigh;
  if (!now.high.is_max() && double(now.current) >= t.near_high * double(now.high.bytes())) why |= kNearHigh;
  if (!now.max.is_max() && double(now.current) >= t.near_high * double(now.max.bytes())) why |= kNearMax;
  if (now.over_swap_high()) why |= kOverSwapHigh;
  return why;
}

// The evidence of rates: which counters rose, and how fast.
uint32_t rate_reasons(const Rates& r, const Thresholds& t) {
  uint32_t why = 0;
  if (r.rise.high > 0) why |= kHighRising;
  if (r.rise.max > 0) why |= kMaxRising;
  if (r.rise.oom_kill + r.rise.oom_group_kill > 0) why |= kOomKill;
  if (r.descendant_oom_kill > 0) why |= kDescendantKill;
  if (r.pgsteal_per_s > 0) why |= kReclaimFrees;
  if (r.refault_file_per_s >= t.thrash_refaults_per_s) why |= kRefaulting;
  if (r.io_some >= t.thrash_io_share) why |= kIoStalled;
  if (r.memory_some >= t.sleep_share) why |= kMemoryStalled;
  if (r.pgmajfault_per_s >= t.thrash_majfaults_per_s) why |= kMajorFaults;
  if (r.swap_growth_bytes_per_s > 0 || r.swapout_per_s > 0) why |= kSwapOut;
  // Without pswpin, anonymous refaults are swap-ins only with the faults that waited for them.
  if (r.swapin_per_s >= t.swapin_per_s && (r.pswpin || (why & kMajorFaults))) why |= kSwapIn;
  if (r.swap_rise.high > 0) why |= kSwapHighRising;
  if (r.swap_rise.max > 0) why |= kSwapMaxRising;
  if (r.swap_rise.fail > 0) why |= kSwapFail;
  return why;
}

}  // namespace

Classification classify(const Sample& now, const Rates& r, const Observed& o, const Thresholds& t) {
  if (uint32_t unknown = unknown_values(now)) return {State::unknown, unknown};
  uint32_t why = level_reasons(now, t);
  if (o.tasks_over_high > 0) why |= kTasksOverHigh;
  if (o.first || r.dt_s <= 0) {
    why |= kFirstSample;
    return {why & (kNearHigh | kOverHigh) ? State::near_high : State::ok, why};
  }
  why |= rate_reasons(r, t);

  auto has = [&](uint32_t bits) { return (why & bits) == bits; };
  // Pages going out: swap grew, or reclaim freed pages while the cgroup holds
  // swap (a swap-in that frees its slot and an eviction that takes one
  // leave memory.swap.current flat, and 6.12 has no pswpout).
  bool going_out = (why & kSwapOut) || ((why & kReclaimFrees) && now.swap_current > 0);
  // Memory PSI also counts waits for refaulted pages and swap-ins, and the
  // reclaim that swaps pages out; it shows sleeping over memory.high only
  // when nothing refaults and pages do not move through swap at the swap-in
  // rate (the VM's cgroup throttled by memory.swap.high: memory PSI 90%,
  // pgsteal 14 pages/s; its swapping one: 22%, 470 pages/s).
  bool swap_traffic =
      (why & kSwapIn) || (now.swap_current > 0 && r.pgsteal_per_s >= t.swapin_per_s);
  bool asleep = (why & kTasksOverHigh) || ((why & kMemoryStalled) && !(why & kRefaulting) && !swap_traffic);
  // memory.swap.events counts descendants' passes too: they are this cgroup's
  // own only while it is over its own memory.swap.high.
  bool high_rising = (why & kHighRising) || has(kSwapHighRising | kOverSwapHigh);
  bool at_limit = why & (kNearHigh | kOverHigh | kNearMax | kHighRising | kMaxRising);
  State s = State::ok;
  if (has(kOomKill)) s = State::oom_killed;
  else if (!o.inner && has(kRefaulting | kReclaimFrees | kMajorFaults) && (why & (kIoStalled | kMemoryStalled)))
    s = State::thrashing;
  else if (high_rising && (asleep || !(why & kReclaimFrees))) s = State::throttled;
  else if (!o.inner && at_limit && (why & kSwapIn) && going_out) s = State::swapping;
  else if (has(kMaxRising)) s = State::at_max;
  else if (has(kHighRising)) s = State::reclaiming;
  else if (why & (kNearHigh | kOverHigh)) s = State::near_high;
  return {s, why};
}

}  // namespace cgmem::watch
