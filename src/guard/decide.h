// The guard's decisions: pure (rows in, decisions out), so every rule is
// tested on fixture trees and synthetic sample sequences.
//
// Per cgroup the Guard remembers how long it has been throttled, thrashing
// or growing, the emulate-shift accounts and, for raise-high, the memory.high
// it found and when it may raise again. observe() takes one scan's rows (from
// watch::Scanner) and returns what each cgroup's rule says to do now. Never
// for the root ("/"), never for a cgroup that matches no rule. Rate limits
// and acting are the caller's (guard/limits.h, guard/act.h); it calls
// done() after each decision it logged, so a condition that still holds
// fires again only after the rule's own wait.
//
// An episode (throttled, thrashing) is a run of intervals in that state, and
// ends when the cgroup has shown another state for longer than kEpisodeGap:
// a task in one capped sleep (2 * HZ jiffies, 2.048 s on the timer wheel at
// HZ=1000) moves no counter, so a scan interval shorter than that sleep
// sees a throttled task with nothing rising. Time is the rows' sample time.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/size.h"
#include "guard/emulate.h"
#include "guard/policy.h"
#include "model/penalty.h"
#include "watch/scanner.h"

namespace cgmem::guard {

// What a decision does. restore: memory.high back to what raise-high found.
enum class Verb : uint8_t { kill, raise_high, restore, report };
std::string_view verb_name(Verb v);  // "kill", "raise-high", "restore", "report"

// The numbers a rule looked at (those that apply; the rest stay unset).
struct Evidence {
  std::optional<double> throttled_s;   // the throttled episode so far
  std::optional<double> thrash_s;      // the thrashing episode so far
  std::optional<double> eta_s;         // to memory.max at the growth since the episode began
  std::optional<uint64_t> rise;        // memory.current growth since the episode began, bytes
  std::optional<ShiftVerdict> shift;   // emulate-shift
  std::optional<ShiftEmulation> emulation;
  std::optional<double> under_s;       // restore: usage under the old memory.high this long
};

struct Decision {
  const Rule* rule = nullptr;
  Verb verb = Verb::report;
  const watch::Row* row = nullptr;  // the scan's row (valid until the next scan)
  std::string why;                  // one sentence: the condition that held
  Evidence evidence;
  Limit expected_high = Limit::max();  // raise/restore: memory.high as read (re-checked before writing)
  Limit new_high = Limit::max();       // raise/restore: what to write
};

inline constexpr double kEpisodeGap = 2.5;  // seconds: longer than the kernel's longest sleep

// What the Guard remembers of one cgroup between scans.
struct Track {
  double throttled_since = -1;  // sample time the throttled episode began; -1: not throttled
  uint64_t rise_from = 0;       // memory.current then
  double throttled_seen = -1;   // the last sample time it was throttled
  double thrash_since = -1;
  double thrash_seen = -1;
  ShiftEmulation emulation;
  double quiet_until = 0;       // kill/report: no new decision before (limits.per_cgroup)
  std::optional<Limit> original_high;  // raise-high: memory.high before the first raise
  uint32_t raises = 0;          // raises since the last restore (the back-off doubles per raise)
  double next_raise = 0;
  double under_since = -1;      // usage under original_high since
};

class Guard {
 public:
  Guard(const Policy& policy, model::Kernel kernel) : policy_(policy), kernel_(kernel) {}

  // One scan. Rows of cgroups that are gone drop what was remembered.
  std::vector<Decision> observe(std::span<const watch::Row> rows);

  // The caller logged (and maybe carried out) d at now_s; acted says the
  // cgroup changed (killed, memory.high written).
  void done(const Decision& d, double now_s, bool acted);

 private:
  std::optional<Decision> decide(const Rule& rule, const watch::Row& row, Track& t, double now);
  // One per kind of action, after decide() has tracked the episodes
  // (d.evidence.throttled_s, thrash_s).
  std::optional<Decision> decide_kill(Decision d, Track& t, double now) const;
  std::optional<Decision> decide_shift(Decision d, Track& t, double now) const;
  std::optional<Decision> decide_raise(Decision d, Track& t, double now) const;

  const Policy& policy_;
  model::Kernel kernel_;
  std::unordered_map<uint64_t, Track> tracks_;  // by cgroup id (directory inode)
};

}  // namespace cgmem::guard
