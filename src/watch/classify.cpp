#include "watch/classify.h"

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
  return {rise(a.high, b.high), rise(a.max, b.max), rise(a.oom, b.oom),
          rise(a.oom_kill, b.oom_kill), rise(a.oom_group_kill, b.oom_group_kill)};
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
      "ok", "near_high", "reclaiming", "at_max", "thrashing", "throttled", "oom_killed", "gone", "unknown"};
  return kNames[static_cast<size_t>(s)];
}

int severity(State s) {
  if (s == State::gone) return -1;
  if (s == State::ok) return 0;
  if (s == State::unknown) return 1;
  return static_cast<int>(s) + 1;
}

Rates rates_between(const Sample& a, const Sample& b) {
  Rates r;
  if (b.t_ns <= a.t_ns) return r;
  r.dt_s = double(b.t_ns - a.t_ns) / 1e9;
  r.rise = event_rises(a.local, b.local);
  uint64_t all_kills = rise(a.events.oom_kill, b.events.oom_kill);
  r.descendant_oom_kill = all_kills > r.rise.oom_kill ? all_kills - r.rise.oom_kill : 0;
  r.high_per_s = double(r.rise.high) / r.dt_s;
  r.max_per_s = double(r.rise.max) / r.dt_s;
  r.sleeps_per_s = r.high_per_s / double(model::kHighEventsPerSleep);
  r.pgsteal_per_s = double(rise(a.pgsteal, b.pgsteal)) / r.dt_s;
  r.refaults_per_s =
      double(rise(a.refault_anon, b.refault_anon) + rise(a.refault_file, b.refault_file)) / r.dt_s;
  r.pgfault_per_s = double(rise(a.pgfault, b.pgfault)) / r.dt_s;
  r.pgmajfault_per_s = double(rise(a.pgmajfault, b.pgmajfault)) / r.dt_s;
  if (a.has(File::current) && b.has(File::current))  // no growth from or to a value not read
    r.growth_bytes_per_s = (double(b.current) - double(a.current)) / r.dt_s;
  r.memory_some = share(a.memory.some_usec, b.memory.some_usec, r.dt_s);
  r.memory_full = share(a.memory.full_usec, b.memory.full_usec, r.dt_s);
  r.io_some = share(a.io.some_usec, b.io.some_usec, r.dt_s);
  r.io_full = share(a.io.full_usec, b.io.full_usec, r.dt_s);
  return r;
}

Verdict classify(const Sample& now, const Rates& r, const Observed& o, const Thresholds& t) {
  if (uint32_t unknown = unknown_values(now)) return {State::unknown, unknown};
  uint32_t why = 0;
  if (!now.high.is_max() && now.current > now.high.bytes()) why |= kOverHigh;
  if (!now.high.is_max() && double(now.current) >= t.near_high * double(now.high.bytes()))
    why |= kNearHigh;
  if (o.tasks_over_high > 0) why |= kTasksOverHigh;
  if (o.first || r.dt_s <= 0) {
    why |= kFirstSample;
    return {why & (kNearHigh | kOverHigh) ? State::near_high : State::ok, why};
  }
  if (r.rise.high > 0) why |= kHighRising;
  if (r.rise.max > 0) why |= kMaxRising;
  if (r.rise.oom_kill + r.rise.oom_group_kill > 0) why |= kOomKill;
  if (r.descendant_oom_kill > 0) why |= kDescendantKill;
  if (r.pgsteal_per_s > 0) why |= kReclaimFrees;
  if (r.refaults_per_s >= t.thrash_refaults_per_s) why |= kRefaulting;
  if (r.io_some >= t.thrash_io_share) why |= kIoStalled;
  if (r.memory_some >= t.sleep_share) why |= kMemoryStalled;
  if (r.pgmajfault_per_s >= t.thrash_majfaults_per_s) why |= kMajorFaults;

  auto has = [&](uint32_t bits) { return (why & bits) == bits; };
  // Memory PSI also counts waits for refaulted pages; it shows sleeping
  // over memory.high only when nothing refaults.
  bool asleep = (why & kTasksOverHigh) || ((why & kMemoryStalled) && !(why & kRefaulting));
  State s = State::ok;
  if (has(kOomKill)) s = State::oom_killed;
  else if (!o.inner && has(kRefaulting | kReclaimFrees | kMajorFaults) && (why & (kIoStalled | kMemoryStalled)))
    s = State::thrashing;
  else if (has(kHighRising) && (asleep || !(why & kReclaimFrees))) s = State::throttled;
  else if (has(kMaxRising)) s = State::at_max;
  else if (has(kHighRising)) s = State::reclaiming;
  else if (why & (kNearHigh | kOverHigh)) s = State::near_high;
  return {s, why};
}

}  // namespace cgmem::watch
