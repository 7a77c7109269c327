// The throttle arithmetic against the kernel's own table and the study.
#include "model/penalty.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace cgmem::model {
namespace {

constexpr uint64_t kMiB = 1 << 20;
const Kernel kHz1000{.hz = 1000};
const Kernel kHz250{.hz = 250};

uint64_t pages(uint64_t bytes) { return bytes / 4096; }

// The comment above MEMCG_DELAY_PRECISION_SHIFT in mm/memcontrol.c: "with a
// high of 100 megabytes", usage -> "time to allocate in ms" (HZ=1000, one
// batch of 64 pages, after the 2 s clamp).
TEST(Penalty, KernelCommentTableFor100M) {
  const uint64_t expected_ms[] = {0,    6,    25,   57,   102,  159,  230,  313,  409,  518, 639,
                                  774,  921,  1081, 1254, 1439, 1638, 1849, 2000, 2000, 2000};
  for (uint64_t mib = 100; mib <= 120; ++mib) {
    Penalty p = penalty(pages(mib * kMiB), pages(100 * kMiB), kHz1000);
    EXPECT_EQ(p.jiffies, expected_ms[mib - 100]) << mib << "M";
    EXPECT_EQ(p.clamped, mib >= 118) << mib << "M";
  }
}

TEST(Penalty, OverageIsFixedPointWithTwentyBits) {
  EXPECT_EQ(overage(100, 100), 0u);
  EXPECT_EQ(overage(99, 100), 0u);
  EXPECT_EQ(overage(200, 100), 1u << 20);           // 100% over
  EXPECT_EQ(overage(101, 100), 10485u);             // 1% = 10485.76, rounded down
  EXPECT_EQ(overage(5, 0), 4u << 20);               // high 0 acts as 1 page
}

TEST(Penalty, MaxOverageTakesTheWorstAncestor) {
  std::vector<Level> levels = {{.usage = 105, .high = 100},   // the cgroup: 5%
                               {.usage = 300, .high = 250},   // parent: 20%
                               {.usage = 300, .high = UINT64_MAX}};  // grandparent: max
  EXPECT_EQ(max_overage(levels), overage(300, 250));
  EXPECT_EQ(max_overage({}), 0u);
}

// The study (HZ=1000): 64000 * o^2 ms; no sleep until about 1.25% over,
// 160 ms at 5%, 640 ms at 10%, the 2 s cap at 17.7%.
TEST(Penalty, StudyFiguresAtHz1000) {
  const uint64_t high = 1'000'000;  // pages, so percentages are exact
  EXPECT_FALSE(penalty(high + 12'500, high, kHz1000).sleeps);  // 1.25%: 10 ms, not > HZ/100
  EXPECT_EQ(penalty(high + 12'500, high, kHz1000).jiffies, 9u);
  EXPECT_TRUE(penalty(high + 13'200, high, kHz1000).sleeps);   // 1.32%: 11 ms
  EXPECT_EQ(penalty(high + 50'000, high, kHz1000).jiffies, 159u);   // 5%: 160 ms less rounding
  EXPECT_EQ(penalty(high + 100'000, high, kHz1000).jiffies, 639u);  // 10%
  EXPECT_FALSE(penalty(high + 176'000, high, kHz1000).clamped);     // 17.6%: 1982 ms
  EXPECT_EQ(penalty(high + 177'000, high, kHz1000).jiffies, 2000u); // 17.7%: capped
}

// At HZ=250 the same curve in ms (16000 * o^2 jiffies), a 500-jiffy cap and
// no sleep at 2 jiffies or less.
TEST(Penalty, StudyFiguresAtHz250) {
  const uint64_t high = 1'000'000;
  EXPECT_EQ(penalty(high + 50'000, high, kHz250).jiffies, 39u);    // 5%: 156 ms
  EXPECT_EQ(penalty(high + 100'000, high, kHz250).jiffies, 159u);  // 10%: 636 ms
  EXPECT_EQ(penalty(high + 200'000, high, kHz250).jiffies, 500u);  // the 2 s cap
  EXPECT_TRUE(penalty(high + 200'000, high, kHz250).clamped);
  EXPECT_FALSE(penalty(high + 13'600, high, kHz250).sleeps);  // 2 jiffies
  EXPECT_TRUE(penalty(high + 13'700, high, kHz250).sleeps);   // 3 jiffies
  EXPECT_DOUBLE_EQ(jiffies_to_ms(500, kHz250), 2000.0);
}

TEST(Penalty, NrPagesScalesAgainstTheBatch) {
  const uint64_t high = 1'000'000;
  EXPECT_EQ(penalty(high + 100'000, high, kHz1000, 128).jiffies, 1278u);  // 639 * 2
  EXPECT_EQ(penalty(high + 100'000, high, kHz1000, 1).jiffies, 9u);       // 639 / 64
  EXPECT_FALSE(penalty(high + 100'000, high, kHz1000, 1).sleeps);
}

TEST(Penalty, SwapDelayIsAddedBeforeTheClamp) {
  std::vector<Level> memory = {{.usage = 1'100'000, .high = 1'000'000}};  // 639
  std::vector<Level> swap = {{.usage = 1'100'000, .high = 1'000'000}};    // 639
  Penalty both = penalty({.memory = memory, .swap = swap}, kHz1000);
  EXPECT_EQ(both.jiffies, 1278u);
  EXPECT_EQ(both.swap_overage, both.memory_overage);
  std::vector<Level> big_swap = {{.usage = 1'150'000, .high = 1'000'000}};
  EXPECT_EQ(penalty({.memory = memory, .swap = big_swap}, kHz1000).jiffies, 2000u);
}

// The RFC applies its shift to the sum, before the clamp.
TEST(Penalty, EachShiftStepHalvesTheUnclampedPenalty) {
  const uint64_t high = 1'000'000;
  uint64_t previous = penalty(high + 500'000, high, kHz1000).unclamped_jiffies;
  EXPECT_EQ(previous, 16'000u);  // 50% over: 8x the cap
  for (uint32_t shift = 1; shift <= 32; ++shift) {
    uint64_t now = penalty(high + 500'000, high, kHz1000, 64, shift).unclamped_jiffies;
    EXPECT_EQ(now, previous >> 1) << shift;
    previous = now;
  }
  EXPECT_EQ(penalty(high + 500'000, high, kHz1000, 64, 3).jiffies, 2000u);
  EXPECT_FALSE(penalty(high + 500'000, high, kHz1000, 64, 3).clamped);  // exactly the cap
  EXPECT_EQ(penalty(high + 500'000, high, kHz1000, 64, 4).jiffies, 1000u);
  EXPECT_EQ(penalty(high + 500'000, high, kHz1000, 64, 99).jiffies, 0u);  // taken as 32
}

TEST(Penalty, MonotoneInUsage) {
  for (const Kernel& k : {kHz1000, kHz250, Kernel{.hz = 100}, Kernel{.hz = 300}}) {
    const uint64_t high = 58'982;  // 241590272 bytes
    uint64_t previous = 0;
    for (uint64_t usage = high - 10; usage < high * 3; usage += 7) {
      uint64_t now = penalty(usage, high, k).unclamped_jiffies;
      ASSERT_GE(now, previous) << k.hz << " " << usage;
      previous = now;
    }
  }
}

// Absurd overages: the model saturates and clamps; the kernel's u64
// arithmetic wraps (overage^2 * HZ >= 2^64 from about 130x at HZ=1000).
TEST(Penalty, NoOverflowAtAbsurdOverages) {
  const uint64_t max = std::numeric_limits<uint64_t>::max();
  for (uint64_t usage : {uint64_t{129} * 1000, uint64_t{200} * 1000, max / 2, max}) {
    Penalty p = penalty(usage, 1000, kHz1000);
    EXPECT_EQ(p.jiffies, 2000u) << usage;
    EXPECT_TRUE(p.clamped) << usage;
    EXPECT_TRUE(p.sleeps) << usage;
  }
  EXPECT_FALSE(penalty(129'000, 1000, kHz1000).kernel_wraps);
  Penalty wrapped = penalty(200'000, 1000, kHz1000);  // 199x over
  EXPECT_TRUE(wrapped.kernel_wraps);
  EXPECT_EQ(wrapped.unclamped_jiffies, max);
  // The kernel keeps the low 64 bits of overage^2 * HZ: 386980352 jiffies
  // before the clamp here, so it still sleeps the cap (a wrapped value under
  // 2 * HZ is possible but rare: about 2000 in 2^30).
  EXPECT_EQ(wrapped.kernel_jiffies, 2000u);
  EXPECT_TRUE(wrapped.kernel_sleeps);
  EXPECT_EQ(penalty(max, 0, kHz1000, 64, 32).jiffies, 2000u);  // shift of a saturated sum
  EXPECT_EQ(penalty(max, max, kHz1000).jiffies, 0u);
  EXPECT_EQ(overage(max, 1), max);  // (2^64 - 2) << 20 does not fit: saturates
}

}  // namespace
}  // namespace cgmem::model
