// Where the time of each throttle sleep goes, beyond the formula's penalty.
//
// The study measured each sleep at 1.06 to 1.10 times the formula (op
// latency / sleeps x formula) and found the timer wheel's rounding to
// explain about half of the extra. The trace splits one sleep's time into
// parts that add up to it:
//
//   reclaim   the high_penalty's reclaim_ns: reclaim before the decision
//   penalty   the formula's, high_sleep's planned_ns
//   timer     the timer wheel's rounding: the first sched_waking of the pid
//             after the sleep started (high_sleep's t_ns - slept_ns), minus
//             that start and the penalty. Slightly negative when a sleep
//             started within a jiffy ends on the tick.
//   wake-up   from that waking to the next sched_switch that gives the pid
//             the CPU
//   rest      from that switch to the high_sleep line (the sleep's end as
//             the kernel's ktime saw it)
//
// Time per sleep = reclaim + slept_ns = reclaim + penalty + timer + wake-up
// + rest; over the penalty it is the figure beside the study's 1.06 to 1.10.
// A sleep a fatal signal ended early (left_jiffies > 0), one without its
// high_sleep line, waking or switch, is counted and left out.
//
// Under software emulation every wake-up is slow. The driver's own wake-ups
// (sched_waking of driver_pid to its switch in) show what any wake-up costs
// on that machine, and so how much of the throttled task's is the emulator's.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "report/trace_event.h"

namespace cgmem::report {

struct SplitPart {
  std::optional<double> median_ns, mean_ns;
  std::optional<double> of_penalty;  // the part's sum over the penalties' sum
};

struct SleepSplit {
  uint64_t sleeps = 0;  // sleeps split into every part
  uint64_t ended_early = 0, without_sleep_line = 0, without_wakeup = 0;
  SplitPart reclaim, penalty, timer, wakeup, rest;
  // Per sleep, (reclaim + slept) / penalty: the median, and the sums' ratio.
  std::optional<double> median_ratio, ratio_of_sums;
  // The timer's sum over the extra's (reclaim + slept - penalty, summed).
  std::optional<double> timer_share_of_extra;
  // Software emulation only: cgmem's driver's wake-ups.
  uint64_t driver_wakeups = 0;
  std::optional<double> driver_wakeup_median_ns;
  // The driver's median wake-up over the throttled task's, at most 1: the
  // part of a wake-up any task pays on this machine.
  std::optional<double> emulator_share_of_wakeup;
};

// `events` sorted by time; `driver_pid` is measured when `emulated`.
SleepSplit split_sleeps(const std::vector<TraceEvent>& events, std::optional<int32_t> driver_pid, bool emulated);

}  // namespace cgmem::report
