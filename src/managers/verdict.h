// What the translated limits do to a program that needs `working_set`
// bytes, from the kernel's throttle arithmetic (src/model):
//
//   fits       the working set is at or below memory.high and memory.max (or
//              above memory.high by less than the kernel's no-sleep margin:
//              reclaim, but no sleep);
//   throttled  above memory.high, at or below memory.max: every 256 KiB
//              allocation sleeps; the cost is given at one sleep per 64-page
//              batch (the kernel comment's case) and at one sleep per page
//              (what the study measured next to another cgroup allocating on
//              the same CPU). memory.high alone never kills;
//   oom        above memory.max: the OOM kill comes once usage reaches
//              memory.max. With memory.high below memory.max the climb from
//              memory.high is slowed: the time is given at both bounds.
//
// Sleeps are the formula's length (no timer-wheel rounding, no reclaim time);
// only the time spent asleep is counted unless an allocation rate is given.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "common/size.h"
#include "managers/assignment.h"

namespace cgmem::managers {

struct VerdictInput {
  uint64_t working_set = 0;           // bytes the program holds
  std::optional<double> alloc_rate;   // bytes/s it allocates when nothing slows it
  uint32_t hz = 1000;                 // CONFIG_HZ (the study's kernel; cgmem model's default)
  uint64_t page_size = 4096;
  uint64_t op_bytes = 256 * 1024;     // one allocation, as in the study
};

struct BoundCost {
  double sleeps_per_batch = 1;  // 1 (per batch) or 64 (per page)
  double op_seconds = 0;        // one op_bytes allocation at the working set
  double slowdown = 0;          // against the unthrottled op, when a rate is known
  std::optional<double> seconds_to_kill;  // oom: memory.high -> memory.max, asleep
};

struct Verdict {
  std::string scope;
  std::string kind;  // "fits", "throttled", "oom"
  Limit high = Limit::max(), max = Limit::max();
  uint64_t working_set = 0;
  uint32_t hz = 1000;
  double sleep_ms = 0;  // one sleep at the working set (throttled)
  std::optional<uint64_t> sleep_start;   // the usage where a batch first sleeps
  std::optional<double> seconds_to_high; // at the allocation rate, unthrottled
  std::optional<double> seconds_to_max_unthrottled;
  BoundCost per_batch{.sleeps_per_batch = 1}, per_page{.sleeps_per_batch = 64};
  std::string summary;  // one line for people
};

// The verdict for one scope of a translation, or nullopt when the scope has
// neither memory.high nor memory.max.
std::optional<Verdict> verdict(const Translation& t, const std::string& scope, const VerdictInput& in);

}  // namespace cgmem::managers
