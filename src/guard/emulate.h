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
// short one seldom (64 pages per sleep). The sleep s is the kernel's
// penalty at its counter just after the charge: the pages in use and the
// whole batch (at the pages in use alone it is about a quarter shorter where
// the leak crawls, and the rest looks like time awake). And each charge
// that sleeps makes 17 reclaim passes first (one where it does not sleep),
// which cost some time. So the guard measures, on this kernel, over windows (a
// window: the intervals from one in which a sleep began to the next such,
// so that the time awake after a sleep and the drain of its stock, which
// often fall in later intervals, stay with the sleep's cycle):
//
//   the drain rate r: the sleeps n (memory.events high / 17) and the net
//     growth g pages of memory.current since the first sleep give
//     (64 n - g) / 63 drained sleeps (memory.current counts the stock, so a
//     batch charged in one interval and drained in the next nets out only
//     over both); r is the rate at which drains every 1 / r seconds would
//     meet that many of the windows' cycles (a cycle: one charge and the
//     pages it bought, of length the window's time / its sleeps),
//   the cost per high event c and per page a: the time awake in each
//     window (its time less the sleeps), and in each interval before the
//     first sleep, fitted by least squares to c * events + a * pages;
//     where the two are proportional (one page per sleep, the crawl) the
//     split is unknown and the events take it all.
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
//               time (its sleeps and reclaim passes, carried into the next
//               intervals while they last) scaled by the charging
//               time per page at S over that at 0, plus the rest of the time
//               awake, which the shift does not change
//   remaining R = the time at S from here to memory.max: a + h / m over the
//               pages left (from the lower of the interval's two samples of
//               memory.current, at most 63 pages lower: the higher may hold
//               a batch's rest in the stock, which the program has not
//               used), plus the charge under way (sleep and reclaim
//               passes), scaled. In the last 64 pages below memory.max a
//               batch no longer fits: each page charges alone, and sleeps
//               1/64 of a batch's penalty (none at all where that is
//               HZ / 100 or less, which is most of them).
//               Until 3 sleeps are counted, the rate is taken as infinite
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
#include <optional>

#include "common/size.h"
#include "model/penalty.h"

namespace cgmem::guard {

inline constexpr size_t kLengthBins = 48;  // quarter octaves of cycle length from 1 ms (to 4 s)

// Sums for the least-squares fit of the time awake in a window to its high
// events (reclaim passes) and pages grown.
struct Sums {
  double ee = 0, pp = 0, ep = 0;  // events^2, pages^2, events * pages
  double we = 0, wp = 0;          // awake * events, awake * pages
  // These sums with one more observation: `awake` seconds over `events` and `pages`.
  Sums plus(double events, double pages, double awake) const {
    return {ee + events * events, pp + pages * pages, ep + events * pages, we + awake * events, wp + awake * pages};
  }
  // These sums and another's observations together.
  Sums plus(const Sums& o) const { return {ee + o.ee, pp + o.pp, ep + o.ep, we + o.we, wp + o.wp}; }
};

// The intervals from one in which a sleep began to the next such.
struct Window {
  double sleeps = 0;  // memory.events high / 17
  double s = 0;       // its time
  double awake = 0;   // its time less the sleeps
  double events = 0;  // memory.events high
  double pages = 0;   // net growth of memory.current, may be negative (a drain)
};

struct ShiftEmulation {
  bool started = false;
  uint64_t start_usage = 0;  // memory.current when it first went over memory.high, bytes
  // The lower of the last interval's two samples of memory.current (at most
  // 63 pages lower: the stock), bytes.
  uint64_t low_usage = 0;
  double actual_s = 0;       // A
  double emulated_s = 0;     // E
  double sleeps = 0;         // sleeps counted since the start
  double grown_pages = 0;    // net growth of memory.current since the first sleep, above where this kernel sleeps
  Window window;             // the one still open
  // Closed windows' cycles (a sleep and the pages it bought) and their
  // summed time, by length (emulate.cpp's length_bin).
  std::array<double, kLengthBins> cycles_by_length{};
  std::array<double, kLengthBins> cycle_s_by_length{};
  double owed_s = 0;          // sleep counted but not yet over
  double owed_reclaim_s = 0;  // reclaim passes counted but not yet over
  Sums fit;                   // over closed windows
  // The intervals under memory.high in which the program grew: its own
  // time per page, with no reclaim pass and no sleep. Kept from one episode
  // over memory.high to the next.
  Sums own;
};

// Sleeps after which the stock was gone (a drain came): (64 n - g) / 63, within [0, n].
double drained(const ShiftEmulation& e, const model::Kernel& kernel);

// What this kernel showed so far, to emulate the shifted one with.
struct Costs {
  double drained = 0;       // sleeps after which a drain came (drained() below)
  double drains_per_s = 0;  // infinite until 3 sleeps are counted, or when every sleep was drained
  double per_event_s = 0;   // awake per memory.events high (one reclaim pass)
  double per_page_s = 0;    // awake per page grown (the program's own time)
};
Costs costs(const ShiftEmulation& e, const model::Kernel& kernel);

struct ShiftVerdict {
  double remaining_s = 0;       // R (infinite without memory.max)
  double budget_s = 0;          // E + R: when the shifted kernel would kill
  Costs costs;
  double sleeps_per_batch = 0;  // at shift S and the current usage (0: S does not sleep there)
  bool kill = false;            // A >= E + R
};

// One interval between two samples: usage (memory.current) went from `from`
// to `to` bytes in dt seconds, and memory.events high rose by high_rise.
// Named fields, so two of them cannot trade places at a call.
struct Interval {
  uint64_t from = 0, to = 0;
  double dt = 0;
  uint64_t high_rise = 0;
};

// An interval under memory.high: ends an episode over it, and measures the
// program's own pace (high_rise is not used).
void under_high(ShiftEmulation& e, const Interval& i, const model::Kernel& kernel);

// An interval over memory.high (`high`, bytes).
void advance(ShiftEmulation& e, uint32_t shift, const Interval& i, uint64_t high, const model::Kernel& kernel);

ShiftVerdict judge(const ShiftEmulation& e, uint32_t shift, uint64_t usage, uint64_t high, const Limit& max,
                   const model::Kernel& kernel);

// One interval of a watched cgroup, the guard's and guard_replay's: over
// memory.high it advances and judges; at or under it (or with no
// memory.high) it takes under_high() and gives no verdict.
std::optional<ShiftVerdict> step(ShiftEmulation& e, uint32_t shift, const Interval& i, const Limit& high,
                                 const Limit& max, const model::Kernel& kernel);

}  // namespace cgmem::guard
