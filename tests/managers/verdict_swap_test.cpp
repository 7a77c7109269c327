// The verdict on a host with swap: where the working set settles (memory
// held at the lower of memory.high and memory.max, the rest in swap up to
// min(memory.swap.max, host swap)), the kinds that follow, the swap.high
// term, and each manager whose swap settings change the verdict.
#include <gtest/gtest.h>

#include "managers/docker.h"
#include "managers/kubelet.h"
#include "managers/oci.h"
#include "managers/systemd.h"
#include "managers/verdict.h"
#include "model/predict.h"

namespace cgmem::managers {
namespace {

using model::Verdict;
using model::VerdictKind;

constexpr uint64_t kMi = 1 << 20, kGi = uint64_t{1} << 30;
constexpr uint64_t kStudyHigh = 241590272, kStudyMax = 256 * kMi;
constexpr uint64_t kAnonFit = 250820198;  // the study's throttled working set (239.2 MiB)

// One scope, "unit", with the files given (nullopt: not written).
Translation files(std::optional<uint64_t> high, std::optional<uint64_t> max, std::optional<uint64_t> swap_max = {},
                  std::optional<uint64_t> swap_high = {}) {
  Translation t{.manager = "test"};
  auto add_file = [&](const char* file, std::optional<uint64_t> v) {
    if (v) t.assignments.push_back({.scope = "unit", .file = file, .value = Limit::of(*v)});
  };
  add_file("memory.high", high), add_file("memory.max", max);
  add_file("memory.swap.max", swap_max), add_file("memory.swap.high", swap_high);
  return t;
}

model::Verdict of(const Translation& t, uint64_t working_set, uint64_t host_swap, const std::string& scope = "unit") {
  auto v = verdict(t, scope, {.working_set = working_set, .host_swap = host_swap});
  EXPECT_TRUE(v);
  return v.value_or(Verdict{});
}

// One batch's sleep from the swap term alone, as the kernel computes it.
double swap_term_ms(uint64_t swapped, uint64_t swap_high) {
  model::Kernel k;
  model::Level swap{.usage = swapped / 4096, .high = swap_high / 4096};
  auto p = model::penalty(model::PenaltyInput{.swap = {&swap, 1}}, k);
  return p.sleeps ? model::jiffies_to_ms(p.jiffies, k) : 0;
}

TEST(VerdictSwap, NoHostSwapKeepsTheVerdictWithoutSwap) {
  for (uint64_t ws : {200 * kMi, kAnonFit, 320 * kMi}) {
    Verdict with_file = of(files(kStudyHigh, kStudyMax, 256 * kMi), ws, 0);
    Verdict without = of(files(kStudyHigh, kStudyMax), ws, 0);
    EXPECT_FALSE(with_file.swap);
    EXPECT_EQ(with_file.kind, without.kind);
    EXPECT_EQ(with_file.summary, without.summary);
    EXPECT_EQ(with_file.oom_at, kStudyMax);
  }
}

TEST(VerdictSwap, AboveMaxWithinSwapSwaps) {
  Verdict v = of(files({}, kStudyMax, 256 * kMi), 320 * kMi, 4 * kGi);
  EXPECT_EQ(v.kind, model::VerdictKind::swaps);
  ASSERT_TRUE(v.swap);
  EXPECT_EQ(v.swap->allowed, 256 * kMi);
  EXPECT_EQ(v.swap->swapped, 64 * kMi);
  EXPECT_EQ(v.swap->resident, kStudyMax);
  EXPECT_DOUBLE_EQ(v.swap->swapped_share, 0.2);
  EXPECT_EQ(v.oom_at, 512 * kMi);
  EXPECT_EQ(v.summary,
            "swaps: 320MiB does not fit in memory.max 256MiB: 64MiB (20.0%) goes to swap (256MiB of swap "
            "allowed: memory.swap.max 256MiB, host swap 4GiB); not killed below 512MiB (memory.max + the swap "
            "allowed); the swap-ins cost the swap device's time, which cgmem does not model");
}

TEST(VerdictSwap, BeyondMaxPlusSwapIsOom) {
  auto v = verdict(files({}, kStudyMax, 256 * kMi), "unit",
                   {.working_set = 600 * kMi, .alloc_rate = 1024.0 * kMi, .host_swap = 4 * kGi});
  ASSERT_TRUE(v);
  EXPECT_EQ(v->kind, model::VerdictKind::oom);
  EXPECT_EQ(v->oom_at, 512 * kMi);
  EXPECT_EQ(v->swap->swapped, 256 * kMi);
  EXPECT_FALSE(v->per_batch.seconds_to_kill);
  EXPECT_DOUBLE_EQ(*v->seconds_to_max_unthrottled, 0.25);
  EXPECT_DOUBLE_EQ(*v->seconds_to_oom_unthrottled, 0.5);
}

TEST(VerdictSwap, TheHostsSwapBoundsAnUnwrittenSwapMax) {
  Translation t = files({}, kStudyMax);  // memory.swap.max not written: max
  EXPECT_EQ(of(t, 320 * kMi, 100 * kMi).kind, model::VerdictKind::swaps);
  Verdict past = of(t, 400 * kMi, 100 * kMi);
  EXPECT_EQ(past.kind, model::VerdictKind::oom);
  EXPECT_EQ(past.swap->allowed, 100 * kMi);
  EXPECT_EQ(past.oom_at, 356 * kMi);
  // The host's swap is counted in whole pages.
  EXPECT_EQ(of(t, 320 * kMi, 100 * kMi + 1000).swap->host_swap, 100 * kMi);
}

TEST(VerdictSwap, SwapMaxZeroKeepsTheKindsWithoutSwap) {
  for (uint64_t ws : {200 * kMi, kAnonFit, 320 * kMi}) {
    Verdict v = of(files(kStudyHigh, kStudyMax, 0), ws, 4 * kGi);
    Verdict without = of(files(kStudyHigh, kStudyMax), ws, 0);
    EXPECT_EQ(v.kind, without.kind);
    EXPECT_EQ(v.swap->allowed, 0u);
    EXPECT_EQ(v.per_batch.seconds_to_kill, without.per_batch.seconds_to_kill);
  }
  EXPECT_TRUE(of(files(kStudyHigh, kStudyMax, 0), 320 * kMi, 4 * kGi)
                  .summary.ends_with("; memory.swap.max 0: nothing goes to swap"));
}

TEST(VerdictSwap, FitsBelowTheLowerLimit) {
  Verdict v = of(files(kStudyHigh, kStudyMax), 200 * kMi, 4 * kGi);
  EXPECT_EQ(v.kind, model::VerdictKind::fits);
  EXPECT_EQ(v.swap->swapped, 0u);
  EXPECT_EQ(v.summary, of(files(kStudyHigh, kStudyMax), 200 * kMi, 0).summary);
}

TEST(VerdictSwap, OverHighReclaimSwapsInsteadOfThrottling) {
  EXPECT_EQ(of(files(kStudyHigh, kStudyMax), kAnonFit, 0).kind, model::VerdictKind::throttled);
  Verdict v = of(files(kStudyHigh, kStudyMax), kAnonFit, 1 * kGi);
  EXPECT_EQ(v.kind, model::VerdictKind::swaps);
  EXPECT_EQ(v.swap->resident, kStudyHigh);
  EXPECT_EQ(v.swap->swapped, kAnonFit - kStudyHigh);
  EXPECT_EQ(v.oom_at, kStudyMax + kGi);
  // Between memory.high and the no-sleep margin, too: reclaim swaps there.
  EXPECT_EQ(of(files(kStudyHigh, kStudyMax), kStudyHigh + kMi, 1 * kGi).kind, model::VerdictKind::swaps);
}

TEST(VerdictSwap, SwapFullThrottlesAtTheSizeLeftInMemory) {
  // 4 MiB of swap takes 4 MiB off the working set; the rest throttles as it
  // would on a host without swap.
  Verdict v = of(files(kStudyHigh, kStudyMax, 4 * kMi), kAnonFit + 4 * kMi, 1 * kGi);
  Verdict without = of(files(kStudyHigh, kStudyMax), kAnonFit, 0);
  EXPECT_EQ(v.kind, model::VerdictKind::throttled);
  EXPECT_EQ(v.swap->resident, kAnonFit);
  EXPECT_NEAR(v.per_batch.op_seconds, without.per_batch.op_seconds, 1e-12);
  EXPECT_NEAR(v.per_page.op_seconds, without.per_page.op_seconds, 1e-12);
  EXPECT_NEAR(v.sleep_ms, without.sleep_ms, 1e-9);
}

TEST(VerdictSwap, SwapHighAddsItsTermWithMemoryBelowHigh) {
  // memory.current stays at memory.max; 64 MiB in swap against a swap.high of 60 MiB.
  Verdict v = of(files({}, kStudyMax, {}, 60 * kMi), 320 * kMi, 1 * kGi);
  EXPECT_EQ(v.kind, model::VerdictKind::throttled);
  double term = swap_term_ms(64 * kMi, 60 * kMi);
  ASSERT_GT(term, 0);
  EXPECT_DOUBLE_EQ(v.swap->swap_sleep_ms, term);
  EXPECT_DOUBLE_EQ(v.sleep_ms, term);
  // A 256 KiB allocation is one 64-page batch: one sleep, or 64 at one per page.
  EXPECT_DOUBLE_EQ(v.per_batch.op_seconds, term / 1000);
  EXPECT_DOUBLE_EQ(v.per_page.op_seconds, 64 * term / 1000);
  // Below swap.high it only swaps.
  EXPECT_EQ(of(files({}, kStudyMax, {}, 60 * kMi), 300 * kMi, 1 * kGi).kind, model::VerdictKind::swaps);
}

TEST(VerdictSwap, BothTermsAreSummedBeforeTheClamp) {
  // Swap full at 64 MiB (over swap.high 60 MiB) and 239.2 MiB left in memory.
  Verdict v = of(files(kStudyHigh, kStudyMax, 64 * kMi, 60 * kMi), kAnonFit + 64 * kMi, 1 * kGi);
  Verdict memory_only = of(files(kStudyHigh, kStudyMax), kAnonFit, 0);
  EXPECT_EQ(v.kind, model::VerdictKind::throttled);
  EXPECT_NEAR(v.sleep_ms, memory_only.sleep_ms + v.swap->swap_sleep_ms, 1e-9);
  EXPECT_LT(v.sleep_ms, 2000);
  // 300% over swap.high: the sum is past 2 x HZ, so every batch sleeps 2 s.
  Verdict clamped = of(files(kStudyHigh, kStudyMax, 64 * kMi, 16 * kMi), kAnonFit + 64 * kMi, 1 * kGi);
  EXPECT_DOUBLE_EQ(clamped.sleep_ms, 2000);
  EXPECT_DOUBLE_EQ(clamped.per_batch.op_seconds, 2);
}

TEST(VerdictSwap, OomKillTimeCountsTheSwapFillPastSwapHigh) {
  Verdict v = of(files({}, kStudyMax, 128 * kMi, 64 * kMi), kGi, 1 * kGi);
  EXPECT_EQ(v.kind, model::VerdictKind::oom);
  EXPECT_EQ(v.oom_at, kStudyMax + 128 * kMi);
  for (const model::BoundCost* b : {&v.per_batch, &v.per_page}) {
    model::Throttle fill{.high = 64 * kMi, .sleeps_per_batch = b->sleeps_per_batch};
    double expected = model::grow(fill, 64 * kMi, 128 * kMi).seconds;
    ASSERT_TRUE(b->seconds_swap_fill);
    EXPECT_DOUBLE_EQ(*b->seconds_swap_fill, expected);
    EXPECT_DOUBLE_EQ(*b->seconds_to_kill, expected);
    EXPECT_FALSE(b->seconds_to_kill_is_lower_bound);
  }
}

TEST(VerdictSwap, OomClimbWithSwapFullIsTheClimbWithoutSwap) {
  Verdict without = of(files(kStudyHigh, kStudyMax), 400 * kMi, 0);
  Verdict v = of(files(kStudyHigh, kStudyMax, 64 * kMi), 400 * kMi, 1 * kGi);
  EXPECT_EQ(v.kind, model::VerdictKind::oom);
  EXPECT_EQ(v.oom_at, kStudyMax + 64 * kMi);
  EXPECT_DOUBLE_EQ(*v.per_batch.seconds_to_kill, *without.per_batch.seconds_to_kill);
  EXPECT_DOUBLE_EQ(*v.per_page.seconds_to_kill, *without.per_page.seconds_to_kill);
  // With swap.high below the allowance the fill comes first, and the climb
  // is at least as long as without it.
  Verdict high = of(files(kStudyHigh, kStudyMax, 64 * kMi, 32 * kMi), 400 * kMi, 1 * kGi);
  EXPECT_TRUE(high.per_batch.seconds_to_kill_is_lower_bound);
  EXPECT_GE(*high.per_batch.seconds_to_kill, *high.per_batch.seconds_swap_fill + *without.per_batch.seconds_to_kill);
  EXPECT_TRUE(high.summary.find("delay the kill by at least") != std::string::npos) << high.summary;
}

// The managers whose swap settings change the verdict.

TEST(VerdictSwapManagers, KubeletLimitedSwapWithTheNodesSwap) {
  KubeletConfig k{.minor = 36, .swap_behavior = SwapBehavior::LimitedSwap, .capacity = int64_t{8} << 30,
                  .swap_capacity = int64_t{4} << 30};
  KubePod pod{.containers = {{.request = int64_t{1} << 30, .limit = int64_t{2} << 30}}};
  auto t = translate_kubelet(*resolve_kubelet_config(k), pod).value();
  ASSERT_TRUE(t.host_swap);
  EXPECT_EQ(*t.host_swap, 4 * kGi);  // --swap-capacity is the verdict's host swap
  // request / capacity x swap = 1/8 x 4 GiB.
  Verdict swaps = of(t, 2 * kGi + 256 * kMi, *t.host_swap, "container app");
  EXPECT_EQ(swaps.kind, model::VerdictKind::swaps);
  EXPECT_EQ(swaps.swap->allowed, 512 * kMi);
  EXPECT_EQ(of(t, 2 * kGi + 768 * kMi, *t.host_swap, "container app").kind, model::VerdictKind::oom);
  k.swap_behavior = SwapBehavior::NoSwap;
  auto no_swap = translate_kubelet(*resolve_kubelet_config(k), pod).value();
  EXPECT_EQ(of(no_swap, 2 * kGi + 256 * kMi, *no_swap.host_swap, "container app").kind, model::VerdictKind::oom);
}

TEST(VerdictSwapManagers, DockerMemoryAloneSwapsUpToTheMemory) {
  // --memory without --memory-swap: memory+swap = 2 x memory, swap.max = memory.
  auto t = translate_docker({.memory = 256 * kMi}, 4096).value();
  Verdict v = of(t, 320 * kMi, 4 * kGi, "container");
  EXPECT_EQ(v.kind, model::VerdictKind::swaps);
  EXPECT_EQ(v.swap->allowed, 256 * kMi);
  EXPECT_EQ(v.oom_at, 512 * kMi);
  // --memory-swap equal to --memory: swap.max 0, killed at memory.max.
  auto none = translate_docker({.memory = 256 * kMi, .swap = 256 * kMi}, 4096).value();
  EXPECT_EQ(of(none, 320 * kMi, 4 * kGi, "container").kind, model::VerdictKind::oom);
}

TEST(VerdictSwapManagers, SystemdMemorySwapMaxZero) {
  auto unit = [](std::vector<SystemdProperty> props) {
    return translate_systemd({.unit = {.properties = std::move(props)}}).value();
  };
  auto zero = unit({{"MemoryMax", "256M", "-p"}, {"MemorySwapMax", "0", "-p"}});
  EXPECT_EQ(of(zero, 320 * kMi, 4 * kGi).kind, model::VerdictKind::oom);
  EXPECT_EQ(of(zero, 320 * kMi, 4 * kGi).oom_at, 256 * kMi);
  // Without MemorySwapMax= systemd writes max, and the host's swap is the bound.
  auto unset = unit({{"MemoryMax", "256M", "-p"}});
  EXPECT_EQ(of(unset, 320 * kMi, 4 * kGi).kind, model::VerdictKind::swaps);
  EXPECT_EQ(of(unset, 320 * kMi, 4 * kGi).swap->allowed, 4 * kGi);
}

TEST(VerdictSwapManagers, RuncUnifiedSwapHigh) {
  // memory+swap 512 MiB over a 256 MiB limit: swap.max 256 MiB; swap.high through the unified map.
  OciMemory m{.limit = 256 * kMi, .swap = 512 * kMi, .unified = {{"memory.swap.high", "33554432"}}};
  auto t = translate_runc(m, 4096).value();
  Verdict v = of(t, 320 * kMi, 4 * kGi, "container");
  EXPECT_EQ(v.kind, model::VerdictKind::throttled);
  EXPECT_EQ(v.swap->swap_high, Limit::of(32 * kMi));
  EXPECT_DOUBLE_EQ(v.swap->swap_sleep_ms, swap_term_ms(64 * kMi, 32 * kMi));
}

}  // namespace
}  // namespace cgmem::managers
