// emulate-shift: the RFC's memory.high.throttle without the patch.
//
// The RFC shifts the kernel's penalty right by S before the 2 * HZ clamp and
// the no-sleep rule, so a cgroup over memory.high sleeps 2^S times shorter
// (and not at all where the shifted penalty drops to HZ/100 or less). The
// guard runs on a kernel without the shift and asks, every interval: would
// the shifted kernel already have reached memory.max, and so killed it?
//
// Shorter sleeps also change how many pages a sleep buys. A sleep follows a
// charge of a whole 64-page batch; the rest of the batch waits in the CPU's
// stock, and the next 63 pages come from it without a sleep, unless
// something charged another cgroup on that CPU meanwhile and so drained the
// stock: then the next page charges, and sleeps, again (docs/model.md). A
// long sleep is nearly always drained (one page per sleep, the crawl); a
// short one seldom (64 pages per sleep). And each charge that sleeps makes
// 17 reclaim passes first (one where it does not sleep), which under TCG
// cost real time. So the guard measures, on this kernel:
//
//   the drain rate r: each interval's sleeps n (memory.events high / 17)
//     and growth g pages give (64 n - g) / 63 drained sleeps; r is the rate
//     at which drains every 1 / r seconds would meet that many of the
//     interval's cycles (a cycle: one charge and the pages it bought),
//   the cost per high event c and per page a: the time awake in each
//     interval (dt less the sleeps) fitted by least squares to c * events
//     + a * pages.
//
// A charge then costs h = s + 17 c where it sleeps s, c where it does not,
// and buys m pages: the cycle (h, then m a) meets a drain with p =
// r (h + m a), and m = 64 - 63 p. Its charging time per page is h / m, at
// shift S with the shifted s.
//
// From the moment the cgroup went over memory.high:
//
//   actual    A = time since then, on this kernel
//   emulated  E = the same progress at shift S: each interval's charging
//               time (its sleeps, carried into the next intervals while a
//               sleep lasts, and its reclaim passes) scaled by the charging
//               time per page at S over that at 0, plus the rest of the time
//               awake, which the shift does not change
//   remaining R = the time at S from here to memory.max: a + h / m over the
//               pages left, plus the sleep under way, scaled.
//               Until 8 sleeps are counted, the rate is taken as infinite
//               (one page per sleep at both shifts: the longest R).
//
// The shifted kernel reaches memory.max at E + R; the guard kills when
// A >= E + R. At S = 0 the ratio is 1, E = A and R > 0 until the kernel
// kills: it never kills before the kernel would. Pure arithmetic: tested on
// synthetic crawls (tests/guard/emulate_test.cpp).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "common/size.h"
#include "model/penalty.h"

namespace cgmem::guard {

inline constexpr size_t kLengthBins = 48;  // quarter octaves of cycle length from 1 ms (to 4 s)

// Sums for the least-squares fit of the time awake in an interval to its
// high events (reclaim passes) and pages grown.
struct Sums {
  double ee = 0, pp = 0, ep = 0;  // events^2, pages^2, events * pages
  double we = 0, wp = 0;          // awake * events, awake * pages
};

struct ShiftEmulation {
  bool started = false;
  uint64_t start_usage = 0;  // memory.current when it first went over memory.high, bytes
  double actual_s = 0;       // A
  double emulated_s = 0;     // E
  double sleeps = 0;         // sleeps counted since the start
  double drained = 0;        // of them, those after which the stock was gone (estimated from the growth)
  // Cycles (a sleep and the pages it bought) and their summed time, by length (emulate.cpp's length_bin).
  std::array<double, kLengthBins> cycles_by_length{};
  std::array<double, kLengthBins> cycle_s_by_length{};
  double owed_s = 0;  // sleep counted but not yet over
  Sums fit;
};

// What this kernel showed so far, to emulate the shifted one with.
struct Costs {
  double drains_per_s = 0;  // infinite until 8 sleeps are counted, or when every sleep was drained
  double per_event_s = 0;   // awake per memory.events high (one reclaim pass)
  double per_page_s = 0;    // awake per page grown (the program's own time)
};
Costs costs(const ShiftEmulation& e);

struct ShiftVerdict {
  double remaining_s = 0;       // R (infinite without memory.max)
  double budget_s = 0;          // E + R: when the shifted kernel would kill
  Costs costs;
  double sleeps_per_batch = 0;  // at shift S and the current usage (0: S does not sleep there)
  bool kill = false;            // A >= E + R
};

// One interval of dt seconds over memory.high: usage went from `from` to
// `to` bytes and memory.events high rose by high_rise.
void advance(ShiftEmulation& e, uint32_t shift, uint64_t from, uint64_t to, double dt, uint64_t high_rise,
             uint64_t high, const model::Kernel& kernel);

ShiftVerdict judge(const ShiftEmulation& e, uint32_t shift, uint64_t usage, uint64_t high, const Limit& max,
                   const model::Kernel& kernel);

}  // namespace cgmem::guard
