// How long a sleep of J jiffies really lasts: the timer wheel.
//
// schedule_timeout(J) arms a timer for jiffies + J. kernel/time/timer.c keeps
// timers in levels of 64 buckets (LVL_BITS = 6), each level 8 times coarser
// than the one below (LVL_CLK_SHIFT = 3): level n has a step of 8^n jiffies
// and takes timeouts from LVL_START(n) = 63 << 3(n-1) jiffies on (63, 504,
// 4032, ...). calc_index() rounds the expiry up to the next multiple of the
// step, strictly above it, so a timer never fires early and fires at most one
// step late. At HZ=1000 a 2000 ms sleep lands on level 2 (64 ms steps); at
// HZ=250 a 500-jiffy (2 s) sleep lands on level 1 (8 jiffies = 32 ms steps).
//
// The sleep, from the call to the wake-up tick, is therefore:
//   min      just over J jiffies (armed at the end of a tick whose J + 1st
//            successor is a step boundary)
//   max      J + step jiffies (armed at the start of a tick on a boundary)
//   typical  step * (J / step + 1): the case of sleeps that follow each other,
//            each armed right after the previous one woke on a step boundary.
//            The study's throttled task: 2048 ms for 2000 jiffies at HZ=1000
//            (measured median 2,047.9 ms), 504 jiffies = 2016 ms for 500 at
//            HZ=250 (measured 2,014 to 2,017 ms).
// Wake-up latency (softirq, scheduler) comes on top and is not modelled.
#pragma once

#include <cstdint>

#include "model/penalty.h"

namespace cgmem::model {

struct WheelSleep {
  uint32_t level = 0;
  uint64_t step_jiffies = 1;  // LVL_GRAN(level)
  uint64_t min_jiffies = 0;   // the sleep lasts more than this
  uint64_t typical_jiffies = 0;
  uint64_t max_jiffies = 0;
  double min_ms = 0, typical_ms = 0, max_ms = 0;
};

// The real length of schedule_timeout(jiffies) at k.hz.
WheelSleep wheel_sleep(uint64_t jiffies, const Kernel& k);

}  // namespace cgmem::model
