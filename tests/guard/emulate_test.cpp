// emulate-shift on a synthetic crawl: a leak charged page by page on a
// kernel at shift S, where a page that finds the CPU's stock empty charges a
// 64-page batch and sleeps one (wheel) sleep, and a neighbour drains the
// stock every `period` seconds on average (0.5 to 1.5 periods apart). The
// guard samples the S = 0 crawl every 100 ms as the scanner would and must
// kill when the same crawl at shift S reaches memory.max, and never earlier
// than the plain kernel at S = 0.
#include "guard/emulate.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <sstream>
#include <string>

#include "model/penalty.h"
#include "model/predict.h"

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
};

Crawl crawl(uint32_t kernel_shift, double period, uint32_t guard_shift = 0) {
  const model::Throttle at{.kernel = kKernel, .high = kHigh, .shift = kernel_shift, .wheel = true};
  ShiftEmulation e;
  uint64_t u = kHigh + 4096, sample_u = u, events = 0, sample_events = 0;
  uint32_t stock = 0;
  std::mt19937 rng(7);  // drains a period apart on average, at no fixed phase
  std::uniform_real_distribution<double> jitter(0, 1);
  double t = 0, next_sample = kInterval, next_drain = period;
  Crawl out;
  // Time passes; the guard samples what it sees meanwhile.
  auto pass = [&](double d) {
    for (; next_sample <= t + d; next_sample += kInterval) {
      advance(e, guard_shift, sample_u, u, kInterval, events - sample_events, kHigh, kKernel);
      sample_u = u, sample_events = events;
      if (out.kill_s < 0 && judge(e, guard_shift, u, kHigh, Limit::of(kMax), kKernel).kill) out.kill_s = next_sample;
    }
    t += d;
  };
  while (u < kMax) {
    double s = 0;
    if (stock == 0) {  // charge a batch, sleep on the way back to user space
      stock = kKernel.batch;
      s = model::sleep_seconds(at, u);
      if (s > 0) events += model::kHighEventsPerSleep, out.sleeps += 1;
    }
    --stock;
    u += 4096;
    pass(s + kAwakePerPage);
    for (; next_drain <= t; next_drain += period * (0.5 + jitter(rng))) stock = 0;
  }
  out.max_s = t;
  return out;
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
    << " sleeps), the plain one at " << plain.max_s << " s (" << plain.sleeps << ")";
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
    // the first intervals, before 8 sleeps are counted, are most of it.
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

TEST(EmulateShift, TheDrainRateIsMeasuredFromTheGrowth) {
  auto sleep_at = [](uint64_t usage) {
    return model::sleep_seconds({.kernel = kKernel, .high = kHigh, .wheel = true}, usage);
  };
  ShiftEmulation e;
  uint64_t u = kHigh + (256 << 10);
  // 8 sleeps for 8 batches of 64 pages: no drain, one sleep per batch at any shift.
  advance(e, 2, u, u + 8 * 64 * 4096, 4.0, 8 * 17, kHigh, kKernel);
  EXPECT_LT(costs(e).drains_per_s, 0.01);
  EXPECT_NEAR(judge(e, 2, u + 8 * 64 * 4096, kHigh, Limit::of(kMax), kKernel).sleeps_per_batch, 1, 0.01);
  // 8 more sleeps for 10 pages each: (64 * 8 - 80) / 63 of them drained; no
  // cycle (1 / 2 s) is long enough to meet two drains, so the rate is drained / time.
  uint64_t v = u + 8 * 64 * 4096;
  advance(e, 2, v, v + 80 * 4096, 4.0, 8 * 17, kHigh, kKernel);
  double rate = (64.0 * 8 - 80) / 63 / 8.0;
  EXPECT_NEAR(costs(e).drains_per_s, rate, 1e-6 * rate);
  // The time awake (four seconds less the sleeps) split into a cost per
  // high event and one per page. Here the exact split gives a negative cost
  // per event: it is 0, and the pages carry all of it (least squares).
  Costs k = costs(e);
  double awake_1 = 4.0 - 8 * sleep_at(u + 4 * 64 * 4096), awake_2 = 4.0 - 8 * sleep_at(v + 40 * 4096);
  EXPECT_EQ(k.per_event_s, 0);
  EXPECT_NEAR(k.per_page_s, (awake_1 * 512 + awake_2 * 80) / (512.0 * 512 + 80 * 80), 1e-12);
  // No memory.max: the shifted kernel never kills either.
  EXPECT_FALSE(judge(e, 2, v, kHigh, Limit::max(), kKernel).kill);
}

TEST(EmulateShift, UntilEightSleepsEverySleepCountsAsDrained) {
  ShiftEmulation e;
  advance(e, 2, kHigh + 4096, kHigh + 8192, 1.0, 7 * 17, kHigh, kKernel);
  EXPECT_TRUE(std::isinf(costs(e).drains_per_s));
  EXPECT_EQ(judge(e, 2, kMax - 4096 * 2, kHigh, Limit::of(kMax), kKernel).sleeps_per_batch, 64);
}

}  // namespace
}  // namespace cgmem::guard
