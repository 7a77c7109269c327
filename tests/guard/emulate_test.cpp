// emulate-shift on a synthetic crawl: a leak that sleeps once per page at
// the kernel's (wheel) sleep length, sampled every second as the scanner
// would, must be killed when the model says the shifted kernel would have
// reached memory.max, and never earlier than the plain kernel at S = 0.
#include "guard/emulate.h"

#include <gtest/gtest.h>

#include "model/penalty.h"
#include "model/predict.h"

namespace cgmem::guard {
namespace {

constexpr uint64_t kHigh = 7372 * 4096;  // 28.8 MiB, page-rounded
constexpr uint64_t kMax = 32 << 20;
const model::Kernel kKernel{.hz = 1000};

model::Throttle plain(double k) { return {.kernel = kKernel, .high = kHigh, .sleeps_per_batch = k, .wheel = true}; }

// The crawl on the plain kernel, one sleep per `pages` pages; returns the
// time the guard kills at shift S (or -1: not before memory.max), and the
// time memory.max was reached.
struct Crawl {
  double kill_s = -1;
  double max_s = 0;
};
Crawl crawl(uint32_t shift, uint64_t pages) {
  ShiftEmulation e;
  uint64_t u = kHigh + 4096, sample_u = u;
  double t = 0, next_sample = 1;
  uint64_t events = 0, sample_events = 0;
  Crawl out;
  while (u < kMax) {
    double s = model::sleep_seconds(plain(1), u);
    t += s > 0 ? s : 0.0005;  // a page costs 0.5 ms awake when it does not sleep
    if (s > 0) events += model::kHighEventsPerSleep;
    u += 4096 * pages;
    while (t >= next_sample) {
      advance(e, shift, sample_u, u, 1.0, events - sample_events, kHigh, kKernel);
      sample_u = u, sample_events = events;
      if (out.kill_s < 0 && judge(e, shift, u, kHigh, Limit::of(kMax), kKernel).kill) out.kill_s = next_sample;
      next_sample += 1;
    }
  }
  out.max_s = t;
  return out;
}

TEST(EmulateShift, AtShiftZeroItNeverKillsBeforeTheKernel) {
  Crawl c = crawl(0, 1);
  // Only at memory.max itself, where the kernel kills too.
  EXPECT_TRUE(c.kill_s < 0 || c.kill_s >= c.max_s - 1) << "killed at " << c.kill_s << " s, the kernel at " << c.max_s << " s";
  EXPECT_GT(c.max_s, 100);  // the per-page crawl: minutes at this scale
}

TEST(EmulateShift, KillsWhenTheShiftedKernelWouldHaveReachedMemoryMax) {
  for (uint32_t shift : {2u, 4u, 6u}) {
    Crawl c = crawl(shift, 1);
    model::Throttle shifted = plain(64);
    shifted.shift = shift;
    double expected = model::grow(shifted, kHigh + 4096, kMax).seconds;
    ASSERT_GT(c.kill_s, 0) << "shift " << shift;
    // Within 15% or one sample interval of what the model gives for the shifted kernel.
    EXPECT_NEAR(c.kill_s, expected, std::max(0.15 * expected, 1.5))
        << "shift " << shift << ": killed at " << c.kill_s << " s, shifted kernel " << expected << " s, plain "
        << c.max_s << " s";
  }
}

TEST(EmulateShift, AShiftThatStopsEverySleepKillsAtOnce) {
  // At 8 the shifted penalty is 10 ms or less everywhere below memory.max:
  // the patched kernel never sleeps and reaches memory.max at full speed.
  Crawl c = crawl(8, 1);
  EXPECT_EQ(c.kill_s, 1);
}

TEST(EmulateShift, PerBatchSleepsAreMeasuredFromTheGrowth) {
  ShiftEmulation e;
  uint64_t u = kHigh + (1 << 20);
  // 20 sleeps for 20 batches of 64 pages: one sleep per batch.
  advance(e, 2, u, u + 20 * 64 * 4096, 1.0, 20 * 17, kHigh, kKernel);
  ShiftVerdict v = judge(e, 2, u + 20 * 64 * 4096, kHigh, Limit::of(kMax), kKernel);
  EXPECT_NEAR(v.sleeps_per_batch, 1, 0.01);
  // No memory.max: the shifted kernel never kills either.
  EXPECT_FALSE(judge(e, 2, u, kHigh, Limit::max(), kKernel).kill);
}

}  // namespace
}  // namespace cgmem::guard
