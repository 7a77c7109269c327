// emulate-shift: the RFC's memory.high.throttle without the patch.
//
// The RFC shifts the kernel's penalty right by S before the 2 * HZ clamp and
// the no-sleep rule, so a cgroup over memory.high crawls 2^S times faster
// (and not at all where the shifted penalty drops to HZ/100 or less). The
// guard runs on a kernel without the shift and asks, every interval: would
// the shifted kernel already have reached memory.max, and so killed it?
//
// It follows the cgroup from the moment it went over memory.high:
//
//   actual    A = time since then, on this kernel
//   emulated  E = the same progress at shift S: each interval's time asleep
//               (sleeps counted from memory.events high, 17 per sleep, times
//               one sleep's length on the timer wheel) scaled by
//               sleep_S(u) / sleep_0(u) at the interval's usage, plus the
//               time awake, which the shift does not change
//   remaining R = the model's time for usage to grow from here to
//               memory.max at shift S (model::grow), with the sleeps per
//               batch measured so far: growth in the intervals where the
//               kernel sleeps / sleeps counted = bytes per sleep; 64 pages per sleep is one sleep
//               per batch, 1 page per sleep is one per page (docs/model.md).
//               Until 8 sleeps are counted, one per page (the longest R).
//
// The shifted kernel reaches memory.max at E + R; the guard kills when
// A >= E + R. At S = 0 E = A and R > 0 until memory.max: it never kills
// before the kernel would. Pure arithmetic: tested on synthetic sequences.
#pragma once

#include <cstdint>

#include "common/size.h"
#include "model/penalty.h"

namespace cgmem::guard {

struct ShiftEmulation {
  bool started = false;
  uint64_t start_usage = 0;  // memory.current when it first went over memory.high, bytes
  double actual_s = 0;       // A
  double emulated_s = 0;     // E
  double sleeps = 0;         // sleeps counted since the start
  double slept_growth = 0;   // bytes grown in the intervals where this kernel sleeps (k's numerator)
};

struct ShiftVerdict {
  double remaining_s = 0;      // R (infinite without memory.max)
  double budget_s = 0;         // E + R: when the shifted kernel would kill
  double sleeps_per_batch = 0; // k used for R
  bool kill = false;           // A >= E + R
};

// One interval of dt seconds over memory.high: usage went from `from` to
// `to` bytes and memory.events high rose by high_rise.
void advance(ShiftEmulation& e, uint32_t shift, uint64_t from, uint64_t to, double dt, uint64_t high_rise,
             uint64_t high, const model::Kernel& kernel);

ShiftVerdict judge(const ShiftEmulation& e, uint32_t shift, uint64_t usage, uint64_t high, const Limit& max,
                   const model::Kernel& kernel);

}  // namespace cgmem::guard
