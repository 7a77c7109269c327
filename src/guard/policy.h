// A guard policy: the rules `cgmem guard` acts by, read from TOML.
//
//   [limits]                     # optional
//   per_cgroup = "30s"           # at least this long between two decisions on one cgroup
//   per_minute = 6               # at most this many actions a minute, all cgroups together
//
//   [[rules]]                    # the first rule whose match fits a cgroup is its rule
//   name = "leaks"
//   match = "^/jobs/"            # RE2 regex (common/pattern.h) on the path below --root ("/jobs/a")
//   action = "kill"              # kill | raise-high | emulate-shift | report
//   throttled_for = "20s"        # kill/report: throttled without a break this long
//   eta_over = "5m"              # kill/report: growing (min_rise since the throttle began)
//   min_rise = "1M"              #   and memory.max further away than this at that growth
//   thrash_for = "30s"           # kill/report: thrashing without a break this long
//   step = "2M"                  # raise-high: bytes or a percentage of memory.high
//   ceiling = "64M"              # raise-high: never above (default: memory.max)
//   backoff = "10s"              # raise-high: wait after a raise, doubled after each
//   restore_after = "30s"        # raise-high: usage under the old memory.high this long
//   shift = 4                    # emulate-shift: the RFC's memory.high.throttle, 0..32
//
// Every unknown key, a key the action does not take, a wrong type or an
// out-of-range value is an error that names the rule and the key
// (docs/guard.md).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.h"
#include "common/pattern.h"

namespace cgmem::guard {

enum class Action : uint8_t { kill, raise_high, emulate_shift, report };
std::string_view action_name(Action a);  // "kill", "raise-high", "emulate-shift", "report"

// When a kill or report rule fires: any one of the conditions given.
struct Conditions {
  std::optional<double> throttled_for_s;
  std::optional<double> eta_over_s;
  uint64_t min_rise = 1 << 20;  // bytes of growth before an ETA counts
  std::optional<double> thrash_for_s;
  bool any() const { return throttled_for_s || eta_over_s || thrash_for_s; }
};

struct RaiseHigh {
  uint64_t step_bytes = 0;    // one of these two
  double step_percent = 0;    // of the memory.high in force
  std::optional<uint64_t> ceiling;
  double backoff_s = 10;
  double restore_after_s = 30;
};

struct Rule {
  std::string name;
  Pattern match;  // its text() as written
  Action action = Action::report;
  Conditions when;
  RaiseHigh raise;
  uint32_t shift = 0;  // emulate-shift
};

struct Limits {
  double per_cgroup_s = 30;
  uint32_t per_minute = 6;
};

struct Policy {
  std::vector<Rule> rules;
  Limits limits;
};

// Parses a policy; path names the file in messages.
Result<Policy> parse_policy(std::string_view text, const std::string& path);
// Reads and parses the file.
Result<Policy> load_policy(const std::string& path);

// The first rule whose match finds a match in the relative path, or null.
const Rule* rule_for(const Policy& policy, std::string_view path);

}  // namespace cgmem::guard
