// Sleeps counted from a counter against the kernel's formula, as section 1
// (memory.events high) and section 7 (memory.swap.events high) of
// predict.md compare them: the sleeps behind a counter's rise, and the
// ratios of the op latencies to sleeps x formula.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

#include "model/penalty.h"
#include "report/op.h"
#include "report/predict.h"

namespace cgmem::report {

// One op that slept, against the formula.
struct OpSleep {
  const Op* op;  // null for the op in flight
  int64_t lat_ns;
  uint64_t sleeps;
  double formula_ms;  // one sleep
  double step_ms;     // the timer wheel's step for that sleep
  uint32_t level;     // the timer wheel's level (0: 1-jiffy steps)
};

// The op's mean memory.current, and the usage the kernel reads when the
// task returns to user space with its batch charged: for an op of one sleep
// per batch, memory.current after the op when that is higher (predict.cpp
// says what the claims batch measured).
inline uint64_t mean_usage(const Op& op) { return op.current_before / 2 + op.current_after / 2; }
inline uint64_t usage_at_return(const Op& op) { return std::max(mean_usage(op), op.current_after); }

// An op of `sleeps` sleeps of `jiffies` each (0: the formula does not sleep).
OpSleep op_sleep(const Op* op, int64_t lat_ns, uint64_t sleeps, uint64_t jiffies, const model::Kernel& k);

// The sleeps behind a rise of a counter that rises by one per reclaim pass
// (17 per sleep when nothing is reclaimed): a whole multiple of 17, or with
// `one_over` a rise of 17k + 1 (k >= 1) as k. Counts the rise into c
// (ops_with_rise, skipped_not_multiple, skipped_one_over); nullopt for a
// rise that is skipped.
std::optional<uint64_t> sleeps_of_rise(uint64_t rise, bool one_over, SleepCheck& c);

// Section 1's ratios of `ops` into c: latency / (sleeps x formula), with
// half a wheel step, late per sleep, the ops at the 2 x HZ cap.
void compare_sleeps(const std::vector<OpSleep>& ops, const model::Kernel& k, SleepCheck& c);

}  // namespace cgmem::report
