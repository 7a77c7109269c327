// Predictions against the study's reference case: memory.high = 241590272,
// memory.max = 268435456, HZ = 1000.
#include "model/predict.h"

#include <gtest/gtest.h>

#include <cmath>

namespace cgmem::model {
namespace {

constexpr uint64_t kHigh = 241590272;  // 58982 pages
constexpr uint64_t kMax = 268435456;   // 65536 pages
constexpr uint64_t kKiB = 1024;

Throttle study(double k, uint32_t procs = 1) {
  return Throttle{.kernel = {.hz = 1000}, .high = kHigh, .sleeps_per_batch = k, .procs = procs};
}

// "From the point where the sleep starts (233.4 MiB ...)"
TEST(Predict, SleepingStartsAt233Point4MiB) {
  auto start = sleep_start(study(1));
  ASSERT_TRUE(start);
  EXPECT_EQ(*start, 59756u * 4096);  // 233.42 MiB: the first page with 11 ms
  EXPECT_EQ(sleep_seconds(study(1), *start), 0.011);
  EXPECT_EQ(sleep_seconds(study(1), *start - 4096), 0.0);
  auto cap = cap_start(study(1));
  ASSERT_TRUE(cap);
  EXPECT_EQ(*cap, 69409u * 4096);  // 17.68% over, 271.1 MiB: past memory.max
}

// "the formula with one sleep per page predicts 1,720 seconds to reach
// memory.max ... With one sleep per 64 pages it would have been 27 seconds."
TEST(Predict, TimeToMemoryMaxMatchesTheStudy) {
  uint64_t from = *sleep_start(study(1));
  Growth per_page = grow(study(64), from, kMax);
  EXPECT_NEAR(per_page.seconds, 1720.258, 0.001);
  EXPECT_EQ(per_page.sleeps, 65536 - 59756);
  Growth per_batch = grow(study(1), from, kMax);
  EXPECT_NEAR(per_batch.seconds, 27.041, 0.001);
  EXPECT_EQ(per_batch.sleeps, 91);
  EXPECT_EQ(per_batch.throttled_from, from);
  EXPECT_FALSE(per_batch.capped_from);
  // From zero it is the same: nothing sleeps below 233.4 MiB.
  EXPECT_DOUBLE_EQ(grow(study(1), 0, kMax).seconds, per_batch.seconds);
}

TEST(Predict, ProcessesShareTheTime) {
  uint64_t from = *sleep_start(study(1));
  EXPECT_NEAR(grow(study(64, 4), from, kMax).seconds, 1720.258 / 4, 0.001);
}

TEST(Predict, WheelRoundingLengthensEachSleep) {
  Throttle t = study(64);
  t.wheel = true;
  double rounded = grow(t, *sleep_start(t), kMax).seconds;
  EXPECT_NEAR(rounded, 1780.455, 0.001);
}

// "4 KiB per sleep, at the formula's sleep length for the current usage,
// predicts 24.7 to 26.1 KiB/s at the end of the runs" (241.7 to 242.0 MiB).
TEST(Predict, GrowthRateAtTheEndOfTheStudysRuns) {
  double at_241_7 = growth_rate(study(64), 241.7 * 1024 * kKiB) / kKiB;
  double at_242_0 = growth_rate(study(64), 242.0 * 1024 * kKiB) / kKiB;
  EXPECT_NEAR(at_241_7, 26.1, 0.3);
  EXPECT_NEAR(at_242_0, 24.7, 0.3);
  EXPECT_TRUE(std::isinf(growth_rate(study(64), kHigh)));
  EXPECT_NEAR(growth_rate(study(64, 4), 242.0 * 1024 * kKiB) / kKiB, 4 * at_242_0, 1e-9);
}

// A 256 KiB operation at 239 MiB (the anon-fit runs): one sleep per batch
// against 64, and the slowdown against the 0.257 ms unthrottled median.
TEST(Predict, CostOfOneOperation) {
  const uint64_t usage = 239 * 1024 * kKiB;
  double one = sleep_seconds(study(1), usage);
  EXPECT_DOUBLE_EQ(one, 0.089);
  EXPECT_DOUBLE_EQ(op_seconds(study(1), usage, 256 * kKiB), one);
  EXPECT_DOUBLE_EQ(op_seconds(study(64), usage, 256 * kKiB), 64 * one);
  EXPECT_DOUBLE_EQ(op_seconds(study(1), usage, 4 * kKiB), one / 64);
  EXPECT_NEAR(slowdown(study(64), usage, 256 * kKiB, 0.000257), 1 + 64 * 0.089 / 0.000257, 1e-6);
}

TEST(Predict, ShiftDelaysWhereSleepingStarts) {
  Throttle t = study(1);
  t.shift = 1;
  EXPECT_GT(*sleep_start(t), *sleep_start(study(1)));
  t.shift = 32;
  EXPECT_GT(*sleep_start(t), 100 * kHigh);  // still finite: the model saturates
}

TEST(Predict, HugeRangesStayFast) {
  Throttle t{.kernel = {.hz = 1000}, .high = uint64_t{1} << 40, .sleeps_per_batch = 64};
  Growth g = grow(t, 0, uint64_t{3} << 40);
  EXPECT_GT(g.seconds, 0);
  EXPECT_TRUE(g.capped_from);
}

}  // namespace
}  // namespace cgmem::model
