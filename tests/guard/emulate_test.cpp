// emulate-shift on a synthetic crawl: a leak charged page by page on a
// kernel at shift S, where a page that finds the CPU's stock empty charges a
// 64-page batch and sleeps one (wheel) sleep at the usage that batch made,
// and a neighbour drains the stock every `period` seconds on average (0.5 to
// 1.5 periods apart, or nearly periodic as the lab's neighbour is). The
// guard samples the S = 0 crawl every 100 ms as the scanner would, reading
// memory.current as the kernel counts it (the pages used and the rest of
// the batch in the stock), and must kill when the same crawl at shift S
// reaches memory.max, and never earlier than the plain kernel at S = 0.
#include "guard/emulate.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <sstream>
#include <string>

#include "model/penalty.h"
#include "model/predict.h"
#include "model/wheel.h"

namespace cgmem::guard {
namespace {

constexpr uint64_t kHigh = 7372 * 4096;  // 28.8 MiB, page-rounded
constexpr uint64_t kMax = 32 << 20;
constexpr double kAwakePerPage = 0.0005;  // a page's own time, asleep or not
constexpr double kInterval = 0.1;         // the guard's, as in bench/guard_vs_kernel.sh
const model::Kernel kKernel{.hz = 1000};

struct Crawl {
  double kill_s = -1;  // when the guard at guard_shift killed (-1: not before memory.max)
  double max_s = 0;    // when this kernel reached memory.max
  double sleeps = 0;
  ShiftVerdict verdict;  // the guard's, at the kill
};

struct Scene {
  double period = 0.01;    // the neighbour's mean time between drains, s
  double spread = 1;       // drains period * (1 - spread / 2 .. 1 + spread / 2) apart
  double per_event_s = 0;  // awake per reclaim pass (17 before a sleep, one for a charge that does not sleep)
  uint32_t seed = 7;
};

Crawl crawl(uint32_t kernel_shift, const Scene& scene, uint32_t guard_shift = 0) {
  const model::Throttle at{.kernel = kKernel, .high = kHigh, .shift = kernel_shift, .wheel = true};
  const uint64_t page = kKernel.page_size;
  ShiftEmulation e;
  // used: pages faulted in; memory.current also counts what is left in the stock.
  uint64_t used = kHigh + page, stock = 0, events = 0;
  auto current = [&] { return used + stock * page; };
  uint64_t sample_current = current(), sample_events = 0;
  std::mt19937 rng(scene.seed);  // drains at no fixed phase
  std::uniform_real_distribution<double> jitter(0, 1);
  auto gap = [&] { return scene.period * (1 - scene.spread / 2 + scene.spread * jitter(rng)); };
  double t = 0, next_sample = kInterval, next_drain = gap();
  Crawl out;
  // Time passes: the neighbour drains the stock and the guard samples, in order.
  auto pass = [&](double d) {
    const double end = t + d;
    for (double next = std::min(next_sample, next_drain); next <= end; next = std::min(next_sample, next_drain)) {
      t = next;
      if (next_drain <= next_sample) {
        stock = 0, next_drain += gap();
        continue;
      }
      const Interval interval{
          .from = sample_current, .to = current(), .dt = kInterval, .high_rise = events - sample_events};
      advance(e, guard_shift, interval, kHigh, kKernel);
      sample_current = current(), sample_events = events;
      if (out.kill_s < 0) {
        ShiftVerdict v = judge(e, guard_shift, current(), kHigh, Limit::of(kMax), kKernel);
        if (v.kill) out.kill_s = t, out.verdict = v;
      }
      next_sample += kInterval;
    }
    t = end;
  };
  while (used < kMax) {
    double s = 0;
    uint64_t passes = 0;
    if (stock == 0) {  // charge a batch, reclaim and sleep on the way back to user space
      if (used + kKernel.batch * page <= kMax) {
        stock = kKernel.batch;
        // The penalty is the counter's just after the charge: the batch too.
        s = model::sleep_seconds(at, used + kKernel.batch * page);
      } else {  // a batch no longer fits: one page, and 1/64 of the penalty
        stock = 1;
        model::Penalty p = model::penalty(used / page + 1, kHigh / page, kKernel, 1, kernel_shift);
        s = p.sleeps ? double(model::wheel_sleep(p.jiffies, kKernel).typical_jiffies) / kKernel.hz : 0;
      }
      passes = s > 0 ? model::kHighEventsPerSleep : 1;
      out.sleeps += s > 0;
    }
    --stock;
    used += page;
    events += passes;
    pass(double(passes) * scene.per_event_s + s);
    pass(kAwakePerPage);
  }
  out.max_s = t;
  return out;
}

Crawl crawl(uint32_t kernel_shift, double period, uint32_t guard_shift = 0) {
  return crawl(kernel_shift, Scene{.period = period}, guard_shift);
}

TEST(EmulateShift, AtShiftZeroItNeverKillsBeforeTheKernel) {
  for (double period : {0.01, 0.1}) {
    Crawl c = crawl(0, period);
    // Only at memory.max itself, where the kernel kills too.
    EXPECT_TRUE(c.kill_s < 0 || c.kill_s >= c.max_s - kInterval)
        << "killed at " << c.kill_s << " s, the kernel at " << c.max_s;
    EXPECT_GT(c.max_s, 100);  // the per-page crawl: minutes at this scale
  }
}

std::string story(double period, uint32_t shift, const Crawl& plain, const Crawl& shifted) {
  std::ostringstream o;
  o << "neighbour every " << period << " s, shift " << shift << ": killed at " << plain.kill_s
    << " s, the shifted kernel reached memory.max at " << shifted.max_s << " s (" << shifted.sleeps
    << " sleeps), the plain one at " << plain.max_s << " s (" << plain.sleeps << "); the guard measured "
    << plain.verdict.costs.drains_per_s << " drains/s, " << plain.verdict.costs.per_event_s * 1e3 << " ms per event, "
    << plain.verdict.costs.per_page_s * 1e3 << " ms per page";
  return o.str();
}

TEST(EmulateShift, KillsWhenTheShiftedKernelWouldHaveReachedMemoryMax) {
  // At 8 the shifted penalty is 10 ms or less everywhere below memory.max:
  // that kernel never sleeps, and the program's own time is all there is.
  for (uint32_t shift : {2u, 3u, 4u, 6u, 8u}) {
    Crawl plain = crawl(0, 0.01, shift);
    Crawl shifted = crawl(shift, 0.01);
    ASSERT_GT(plain.kill_s, 0) << "shift " << shift;
    // Within 20% or four sample intervals of the shifted kernel: under 2 s
    // the first intervals, before 3 sleeps are counted, are most of it.
    EXPECT_NEAR(plain.kill_s, shifted.max_s, std::max(0.2 * shifted.max_s, 4 * kInterval))
        << story(0.01, shift, plain, shifted);
  }
}

TEST(EmulateShift, NextToASlowerNeighbourItIsLateWhereSleepsNearItsPeriod) {
  // Every 100 ms: from S = 4 the shifted sleeps are far shorter than the
  // period and it is on time. At S = 2 and 3 they near it, and the rule
  // "a sleep meets a drain with p = rate * cycle" overstates the drains
  // (two drains are never closer than half a period here): the guard kills
  // between the shifted kernel and twice its time, well before the plain one.
  for (uint32_t shift : {2u, 3u, 4u, 6u, 8u}) {
    Crawl plain = crawl(0, 0.1, shift);
    Crawl shifted = crawl(shift, 0.1);
    ASSERT_GT(plain.kill_s, 0) << "shift " << shift;
    if (shift >= 4) {
      EXPECT_NEAR(plain.kill_s, shifted.max_s, std::max(0.2 * shifted.max_s, 4 * kInterval))
          << story(0.1, shift, plain, shifted);
    } else {
      EXPECT_GE(plain.kill_s, shifted.max_s) << story(0.1, shift, plain, shifted);
      EXPECT_LE(plain.kill_s, 2 * shifted.max_s) << story(0.1, shift, plain, shifted);
    }
  }
}

TEST(EmulateShift, NextToAPeriodicNeighbourWithSlowChargesItIsOnTime) {
  // The bench's neighbour (bench/guard_vs_kernel.sh): the lab's neighbour
  // drains the stock every 100 ms (within 5%), and a sleeping charge is
  // awake 40 ms besides its sleep. The plain kernel's sleeps are longer than
  // the period from 29.9 MiB on, so it buys one page per sleep there and
  // memory.current swings by a batch between samples; the shifted kernel at
  // S = 2 does the same from about 30.4 MiB (its sleep plus the 40 ms), which
  // is most of its time to memory.max. Measured per interval instead of over
  // windows, this crawl gives 6.0 to 6.8 drains/s and 0.4 to 0.6 ms per event
  // and a kill at 0.53 and 0.70 of the S = 2 kernel's time (seeds 7, 8), 0.34
  // to 0.58 at S = 3; over windows 1.03 to 1.07 and 0.97 to 1.03. (The real
  // kernel under TCG is awake only 2 to 4 ms per sleeping charge,
  // docs/measurements/guard.md; 40 ms is the harder case.)
  for (uint32_t seed : {7u, 8u, 9u}) {
    const Scene scene{.period = 0.1, .spread = 0.1, .per_event_s = 0.040 / 17, .seed = seed};
    for (uint32_t shift : {2u, 3u, 4u, 6u, 8u}) {
      Crawl plain = crawl(0, scene, shift);
      Crawl shifted = crawl(shift, scene);
      ASSERT_GT(plain.kill_s, 0) << "shift " << shift << ", seed " << seed;
      // At S = 3 the shifted cycle (its sleep and 40 ms awake above 31 MiB)
      // straddles the period, where pages per sleep fall from 64 to 1 within
      // a few percent of cycle length: within 30% (0.97 to 1.03 measured).
      // At S = 4 the kernel needs 1.4 to 1.7 s: within 20% or five
      // intervals (0.35 s early measured). Elsewhere 20% or four.
      double tolerance = shift == 3 ? 0.3 * shifted.max_s
                         : shift == 4 ? std::max(0.2 * shifted.max_s, 5 * kInterval)
                                      : std::max(0.2 * shifted.max_s, 4 * kInterval);
      EXPECT_NEAR(plain.kill_s, shifted.max_s, tolerance) << "seed " << seed << ", " << story(0.1, shift, plain, shifted);
    }
  }
}

TEST(EmulateShift, TheDrainRateIsMeasuredFromTheGrowth) {
  // A batch's sleep while `used` pages are in use: the kernel's counter
  // holds the batch too.
  auto sleep_at = [](double used) {
    return model::sleep_seconds({.kernel = kKernel, .high = kHigh, .wheel = true}, uint64_t((used + 64) * 4096));
  };
  ShiftEmulation e;
  // From 0.5 MiB over memory.high: the plain kernel sleeps from 0.38 MiB
  // over it (28.8 MiB here) by its counter, the batch included, so from
  // 0.12 MiB in use, and growth below that is no sleep's. Intervals
  // of 5 s: longer than their 8 sleeps.
  const double dt = 5.0;
  uint64_t u = kHigh + (512 << 10);
  // 8 sleeps for 8 batches of 64 pages: no drain, one sleep per batch at any shift.
  advance(e, 2, {.from = u, .to = u + 8 * 64 * 4096, .dt = dt, .high_rise = 8 * 17}, kHigh, kKernel);
  EXPECT_LT(costs(e, kKernel).drains_per_s, 0.01);
  EXPECT_NEAR(judge(e, 2, u + 8 * 64 * 4096, kHigh, Limit::of(kMax), kKernel).sleeps_per_batch, 1, 0.01);
  // 8 more sleeps for 10 pages each: (64 * 8 - 80) / 63 of them drained; no
  // cycle (5 / 8 s) is long enough to meet two drains, so the rate is drained / time.
  uint64_t v = u + 8 * 64 * 4096;
  advance(e, 2, {.from = v, .to = v + 80 * 4096, .dt = dt, .high_rise = 8 * 17}, kHigh, kKernel);
  double drained = (64.0 * 8 - 80) / 63, rate = drained / (2 * dt);
  EXPECT_NEAR(costs(e, kKernel).drained, drained, 1e-9);
  EXPECT_NEAR(costs(e, kKernel).drains_per_s, rate, 1e-6 * rate);
  // The time awake in each window (one interval each here: its time less
  // its sleeps) split into a cost per high event and one per page. Here the
  // exact split gives a negative cost per event: it is 0, and the pages
  // carry all of it (least squares). The pages in use as an interval's
  // sleeps began: between its lower samples (the upper less a batch's rest
  // in the stock, 63 pages, where that is higher).
  Costs k = costs(e, kKernel);
  const double low_1 = double(u) / 4096, low_2 = low_1 + 8 * 64 - 63, low_3 = double(v) / 4096 + 80 - 63;
  double awake_1 = dt - 8 * sleep_at((low_1 + low_2) / 2), awake_2 = dt - 8 * sleep_at((low_2 + low_3) / 2);
  ASSERT_LT((awake_2 - 80 * (awake_1 - awake_2) / (512 - 80)) / (8 * 17), 0);  // the exact split's cost per event
  EXPECT_EQ(k.per_event_s, 0);
  EXPECT_NEAR(k.per_page_s, (awake_1 * 512 + awake_2 * 80) / (512.0 * 512 + 80 * 80), 1e-12);
  // No memory.max: the shifted kernel never kills either.
  EXPECT_FALSE(judge(e, 2, v, kHigh, Limit::max(), kKernel).kill);
}

TEST(EmulateShift, ABatchDrainedInALaterIntervalStillCountsAsDrained) {
  // One page per sleep, each sleep 150 ms and its drain 120 ms after it
  // began: memory.current shows +64 pages in the interval with the sleep and
  // -63 in the next. Counted per interval, the drain fell where no sleep
  // began and was lost; over the whole growth every sleep is drained.
  ShiftEmulation e;
  uint64_t used = kHigh + (1 << 20), current = used;
  for (int i = 0; i < 40; ++i) {
    uint64_t charged = used + 64 * 4096;  // the charge: a batch, one page of it used
    advance(e, 0, {.from = current, .to = charged, .dt = 0.1, .high_rise = 17}, kHigh, kKernel);
    used += 4096;
    // The drain gives back 63.
    advance(e, 0, {.from = charged, .to = used, .dt = 0.05, .high_rise = 0}, kHigh, kKernel);
    current = used;
  }
  EXPECT_NEAR(costs(e, kKernel).drained, 40, 1e-9);
  EXPECT_TRUE(std::isinf(costs(e, kKernel).drains_per_s));  // every sleep drained: no finite rate is measured
  // 150 ms awake and asleep per window, 17 events and one page: the time
  // awake goes to the events, not to the page.
  Costs k = costs(e, kKernel);
  EXPECT_GT(k.per_event_s, 0);
  EXPECT_EQ(k.per_page_s, 0);
}

TEST(EmulateShift, UntilThreeSleepsEverySleepCountsAsDrained) {
  // 2 sleeps at 31 MiB, where shift 2 still sleeps, each for a whole batch:
  // no drain, but too few sleeps to trust that; a third makes it a rate.
  ShiftEmulation e;
  const uint64_t u = 31 << 20;
  advance(e, 2, {.from = u, .to = u + 2 * 64 * 4096, .dt = 1.0, .high_rise = 2 * 17}, kHigh, kKernel);
  EXPECT_TRUE(std::isinf(costs(e, kKernel).drains_per_s));
  EXPECT_EQ(judge(e, 2, u + 2 * 64 * 4096, kHigh, Limit::of(kMax), kKernel).sleeps_per_batch, 64);
  advance(e, 2, {.from = u + 2 * 64 * 4096, .to = u + 3 * 64 * 4096, .dt = 1.0, .high_rise = 17}, kHigh, kKernel);
  EXPECT_LT(costs(e, kKernel).drains_per_s, 0.01);
}

TEST(EmulateShift, TheProgramsOwnPaceUnderMemoryHighOutlivesAnEpisode) {
  // 1,000 pages in 0.1 s under memory.high: 0.1 ms per page, no reclaim.
  ShiftEmulation e;
  const uint64_t u = kHigh - (8 << 20);
  under_high(e, {.from = u, .to = u + 1000 * 4096, .dt = 0.1}, kKernel);
  EXPECT_FALSE(e.started);
  EXPECT_NEAR(costs(e, kKernel).per_page_s, 1e-4, 1e-12);
  // An episode over memory.high and back under it: the pace is kept, the episode is not.
  advance(e, 2, {.from = kHigh + 4096, .to = kHigh + 8192, .dt = 0.1, .high_rise = 17}, kHigh, kKernel);
  EXPECT_TRUE(e.started);
  under_high(e, {.from = kHigh, .to = kHigh, .dt = 0.1}, kKernel);  // no growth: nothing measured
  EXPECT_FALSE(e.started);
  EXPECT_EQ(e.sleeps, 0);
  EXPECT_NEAR(costs(e, kKernel).per_page_s, 1e-4, 1e-12);
}

TEST(EmulateShift, AStepJudgesOnlyOverMemoryHigh) {
  ShiftEmulation e;
  const Limit high = Limit::of(kHigh), max = Limit::of(kMax);
  // At memory.high: not over it.
  EXPECT_FALSE(step(e, 2, {.from = kHigh - 8192, .to = kHigh, .dt = 0.1, .high_rise = 0}, high, max, kKernel));
  EXPECT_NEAR(costs(e, kKernel).per_page_s, 0.05, 1e-12);                   // 2 pages in 0.1 s: its own pace
  auto verdict = step(e, 2, {.from = kHigh, .to = kHigh + 4096, .dt = 0.1, .high_rise = 17}, high, max, kKernel);
  ASSERT_TRUE(verdict);
  EXPECT_TRUE(e.started);
  EXPECT_NEAR(e.actual_s, 0.1, 1e-12);
  EXPECT_GT(verdict->budget_s, e.actual_s);
  // No memory.high.
  EXPECT_FALSE(
      step(e, 2, {.from = kHigh + 4096, .to = kHigh + 8192, .dt = 0.1, .high_rise = 17}, Limit::max(), max, kKernel));
  EXPECT_FALSE(e.started);
}

}  // namespace
}  // namespace cgmem::guard
