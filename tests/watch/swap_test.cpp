// Swap in the sampler, the classifier and the forecast, on sample pairs:
// the swapping state on 6.12's evidence (workingset_refault_anon with major
// faults) and on the counters later kernels and zswap add, the throttle of
// memory.swap.high, and the forecast's swap term checked against
// model::penalty. A snapshot of real swapping cgroups is replayed in
// sequence_test.cpp.
#include <gtest/gtest.h>

#include <algorithm>

#include "model/penalty.h"
#include "watch/classify.h"
#include "watch/forecast.h"
#include "watch/render.h"

namespace cgmem::watch {
namespace {

constexpr uint64_t kSecond = 1000000000;
constexpr uint64_t kHigh = 30195712;  // 28.8 MiB, page-rounded: the VM lab's memory.high
constexpr uint64_t kMax = 33554432;   // 32 MiB
constexpr uint64_t kMiB = 1 << 20;

// Two reads a second apart of a cgroup at memory.high.
struct Pair {
  Sample a, b;
  Pair() {
    a.t_ns = 10 * kSecond, b.t_ns = 11 * kSecond;
    a.read = b.read = ~0u;
    a.high = b.high = Limit::of(kHigh);
    a.current = b.current = kHigh;
  }
  Rates rates() const { return rates_between(a, b); }
  Classification verdict(Observed o = {}) const { return classify(b, rates(), o); }
};

bool has(const Classification& v, uint32_t bits) { return (v.reasons & bits) == bits; }

// The VM's swapping cgroup on 6.12 with zram, in one interval: reclaim at
// memory.high swaps out, the workload's copies fault the pages back in.
Pair swapping_at_high() {
  Pair p;
  p.a.local.high = 100, p.b.local.high = 400;
  p.a.pgsteal = 1000, p.b.pgsteal = 3000;
  p.a.swap_current = 8 * kMiB, p.b.swap_current = 9 * kMiB;
  p.b.refault_anon = 1500;
  p.b.pgmajfault = 1500;
  p.b.memory.some_usec = 300000;
  return p;
}

TEST(Swapping, SwapGrowingAndAnonymousPagesFaultedBackAtMemoryHighIsSwapping) {
  Pair p = swapping_at_high();
  Rates r = p.rates();
  EXPECT_DOUBLE_EQ(r.swapin_per_s, 1500);
  EXPECT_FALSE(r.pswpin);
  EXPECT_DOUBLE_EQ(r.swap_growth_bytes_per_s, double(kMiB));
  EXPECT_DOUBLE_EQ(r.refault_anon_per_s, 1500);
  EXPECT_DOUBLE_EQ(r.refault_file_per_s, 0);
  Classification v = p.verdict();
  EXPECT_EQ(v.state, State::swapping);
  EXPECT_TRUE(has(v, kSwapOut | kSwapIn | kNearHigh | kMajorFaults | kMemoryStalled));
  EXPECT_FALSE(v.reasons & kRefaulting);
  Row row{.state = v.state, .reasons = v.reasons, .sample = p.b, .rates = r};
  auto text = describe(row);
  EXPECT_NE(std::find(text.begin(), text.end(), "swap-ins 1500 pages/s (workingset_refault_anon)"), text.end())
      << ::testing::PrintToString(text);
  EXPECT_NE(std::find(text.begin(), text.end(), "memory.swap.current +1MiB/s (9MiB in swap)"), text.end())
      << ::testing::PrintToString(text);
}

// A swap-in through zram frees its slot and the next eviction takes one:
// memory.swap.current stays flat while pages go out and come back.
TEST(Swapping, FlatSwapWhileReclaimFreesPagesIsStillSwapping) {
  Pair p = swapping_at_high();
  p.b.swap_current = p.a.swap_current;
  Classification v = p.verdict();
  EXPECT_EQ(v.state, State::swapping);
  EXPECT_FALSE(v.reasons & kSwapOut);
  // With nothing in swap, the same counters are reclaim at memory.high, not swapping.
  p.a.swap_current = p.b.swap_current = 0;
  EXPECT_EQ(p.verdict().state, State::reclaiming);
}

TEST(Swapping, On612AnonymousRefaultsWithoutMajorFaultsAreNoSwapIns) {
  Pair p = swapping_at_high();
  p.b.pgmajfault = 5;  // under the thrash rate of 10/s
  Classification v = p.verdict();
  EXPECT_FALSE(v.reasons & kSwapIn);
  EXPECT_EQ(v.state, State::reclaiming);
}

// From 6.13 memory.stat counts the pages read from and written to swap.
TEST(Swapping, PswpinAndPswpoutCountWhereTheKernelHasThem) {
  Pair p = swapping_at_high();
  p.a.stat_keys = p.b.stat_keys = kPswpin | kPswpout;
  p.b.refault_anon = 0, p.b.pgmajfault = 0;  // not needed with pswpin
  p.b.swap_current = p.a.swap_current;
  p.a.pswpin = 100, p.b.pswpin = 2100;
  p.a.pswpout = 100, p.b.pswpout = 2100;
  Rates r = p.rates();
  EXPECT_TRUE(r.pswpin);
  EXPECT_DOUBLE_EQ(r.swapin_per_s, 2000);
  EXPECT_DOUBLE_EQ(r.swapout_per_s, 2000);
  Classification v = p.verdict();
  EXPECT_EQ(v.state, State::swapping);
  EXPECT_TRUE(has(v, kSwapIn | kSwapOut));
  Row row{.state = v.state, .reasons = v.reasons, .sample = p.b, .rates = r};
  auto text = describe(row);
  EXPECT_NE(std::find(text.begin(), text.end(), "swap-ins 2000 pages/s (pswpin + zswpin)"), text.end())
      << ::testing::PrintToString(text);
  EXPECT_NE(std::find(text.begin(), text.end(), "swap-outs 2000 pages/s (pswpout + zswpout)"), text.end());
  // A key in one sample only (the file unread before) is no rate: back to the refaults.
  p.a.stat_keys = 0;
  EXPECT_FALSE(p.rates().pswpin);
  EXPECT_DOUBLE_EQ(p.rates().swapout_per_s, 0);
  EXPECT_EQ(p.verdict().state, State::reclaiming);
}

TEST(Swapping, ZswapStoresAndLoadsAreSwapsToo) {
  Pair p = swapping_at_high();
  p.a.stat_keys = p.b.stat_keys = kPswpin | kPswpout | kZswpin | kZswpout;
  p.b.swap_current = p.a.swap_current;  // a zswap entry holds its swap slot too
  p.a.zswpin = 0, p.b.zswpin = 800;
  p.a.zswpout = 0, p.b.zswpout = 900;
  Rates r = p.rates();
  EXPECT_DOUBLE_EQ(r.swapin_per_s, 800);
  EXPECT_DOUBLE_EQ(r.swapout_per_s, 900);
  Classification v = p.verdict();
  EXPECT_EQ(v.state, State::swapping);
  EXPECT_TRUE(v.reasons & kSwapOut);
}

// Swap traffic from the host's memory pressure, with no limit reached, is
// not this state; at memory.max it is.
TEST(Swapping, NeedsTheCgroupAtMemoryHighOrMemoryMax) {
  Pair p = swapping_at_high();
  p.a.local.high = p.b.local.high = 0;
  p.a.current = p.b.current = kHigh / 2;
  EXPECT_EQ(p.verdict().state, State::ok);
  p.a.high = p.b.high = Limit::max();
  p.a.max = p.b.max = Limit::of(kMax);
  p.b.current = kMax - 64 * 4096;  // 99% of memory.max, no max event in the interval
  Classification v = p.verdict();
  EXPECT_EQ(v.state, State::swapping);
  EXPECT_TRUE(v.reasons & kNearMax);
  EXPECT_FALSE(v.reasons & (kNearHigh | kOverHigh));
}

TEST(Swapping, AParentAddsUpItsChildrenAndIsNotSwapping) {
  Pair p = swapping_at_high();
  EXPECT_EQ(p.verdict({.inner = true}).state, State::reclaiming);
}

// Thrashing is file pages read back; swapping is anonymous pages. Both at
// once: thrashing, the earlier state.
TEST(Swapping, AnonymousRefaultsAreNotThrashingFileRefaultsStillAre) {
  Pair p = swapping_at_high();
  p.b.io.some_usec = 850000;
  EXPECT_EQ(p.verdict().state, State::swapping);
  p.b.refault_file = 24000;
  Classification v = p.verdict();
  EXPECT_EQ(v.state, State::thrashing);
  EXPECT_TRUE(has(v, kRefaulting | kSwapIn));
}

// Memory PSI counts waits for pages read back from swap: no sign of a
// sleep over memory.high while pages come back; a task in
// mem_cgroup_handle_over_high still is.
TEST(Swapping, MemoryPsiFromSwapInsIsNotSleepingOverHigh) {
  Pair p = swapping_at_high();
  p.b.memory.some_usec = 600000;
  EXPECT_EQ(p.verdict().state, State::swapping);
  EXPECT_EQ(p.verdict({.tasks_over_high = 1}).state, State::throttled);
}

// Over memory.swap.high the kernel sleeps for the swap term: 17 passes of
// memory.swap.events high per sleep, memory.current under memory.high.
Pair over_swap_high() {
  Pair p;
  p.a.high = p.b.high = Limit::max();
  p.a.max = p.b.max = Limit::of(kMax);
  p.a.current = p.b.current = 20 * kMiB;
  p.a.swap_high = p.b.swap_high = Limit::of(4 * kMiB);
  p.a.swap_current = p.b.swap_current = 6 * kMiB;
  p.a.swap_events.high = 0, p.b.swap_events.high = 34;
  return p;
}

TEST(SwapHigh, OverMemorySwapHighAndAsleepIsThrottledUnderMemoryHigh) {
  Pair p = over_swap_high();
  Rates r = p.rates();
  EXPECT_DOUBLE_EQ(r.sleeps_per_s, 2.0);
  EXPECT_EQ(r.swap_rise.high, 34u);
  Classification v = p.verdict({.tasks_over_high = 1});
  EXPECT_EQ(v.state, State::throttled);
  EXPECT_TRUE(has(v, kSwapHighRising | kOverSwapHigh | kTasksOverHigh));
  EXPECT_FALSE(v.reasons & (kHighRising | kOverHigh));
  // Asleep by memory PSI with nothing coming back from swap; nothing reclaimed counts too.
  p.b.memory.some_usec = 900000;
  EXPECT_EQ(p.verdict().state, State::throttled);
  // memory.swap.events has no .local: a parent under its own memory.swap.high
  // counts its children's passes, which are no sleep of its own.
  Pair parent = p;
  parent.a.swap_high = parent.b.swap_high = Limit::max();
  EXPECT_EQ(parent.rates().sleeps_per_s, 0);
  EXPECT_EQ(parent.verdict({.inner = true}).state, State::ok);
  EXPECT_TRUE(parent.verdict({.inner = true}).reasons & kSwapHighRising);
  Row row{.state = v.state, .reasons = v.reasons, .sample = p.b, .rates = r};
  auto text = describe(row);
  EXPECT_NE(std::find(text.begin(), text.end(), "memory.swap.events high +34 in 1.00 s = 2.0 sleeps/s"), text.end())
      << ::testing::PrintToString(text);
  EXPECT_NE(std::find(text.begin(), text.end(), "memory.swap.current 6MiB over memory.swap.high 4MiB"),
            text.end());
}

// The VM's cgroup with its tasks' wchan unread (the exporter's systemd unit
// has no CAP_SYS_PTRACE): memory PSI 90% while reclaim freed 14 pages/s and
// swap grew a little. That reclaim is no 90% stall: the tasks are asleep.
TEST(SwapHigh, MemoryPsiWithLittleReclaimIsTheSleep) {
  Pair p = over_swap_high();
  p.b.memory.some_usec = 900000;
  p.a.max = p.b.max = Limit::of(p.b.current + 64 * 4096);
  p.a.local.max = 10, p.b.local.max = 11;
  p.a.pgsteal = 1000, p.b.pgsteal = 1014;
  p.b.swap_current += 56 << 10;
  EXPECT_EQ(p.verdict().state, State::throttled);
  // Reclaim at the swap-in rate explains the stall: at_max, nobody known asleep.
  p.b.pgsteal = 1500;
  EXPECT_EQ(p.verdict().state, State::at_max);
}

TEST(SwapHigh, SwapMaxAndFailEventsAreEvidence) {
  Pair p = over_swap_high();
  p.b.swap_events.high = 0;
  p.a.swap_max = p.b.swap_max = Limit::of(6 * kMiB);
  p.b.swap_events.max = 3, p.b.swap_events.fail = 3;
  Classification v = p.verdict();
  EXPECT_TRUE(has(v, kSwapMaxRising | kSwapFail));
  Row row{.state = v.state, .reasons = v.reasons, .sample = p.b, .rates = p.rates()};
  auto text = describe(row);
  EXPECT_NE(std::find(text.begin(), text.end(), "memory.swap.events max +3: swap-outs refused at memory.swap.max 6MiB"),
            text.end())
      << ::testing::PrintToString(text);
  EXPECT_NE(std::find(text.begin(), text.end(), "memory.swap.events fail +3"), text.end());
  auto names = reason_names(v.reasons);
  EXPECT_NE(std::find(names.begin(), names.end(), "swap_max_rising"), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), "over_swap_high"), names.end());
}

TEST(SwapHigh, EveryReasonHasAName) {
  EXPECT_EQ(reason_names(~0u).size(), kReasonCount);
  EXPECT_EQ(reason_names(kOverSwapHigh), std::vector<std::string_view>{"over_swap_high"});
}

// The kernel's two terms for one 64-page batch, from model::penalty.
model::Penalty kernel_penalty(const Sample& s, const model::Kernel& k) {
  model::Level memory{.usage = s.current / k.page_size};
  if (!s.high.is_max()) memory.high = s.high.bytes() / k.page_size;
  model::Level swap{.usage = s.swap_current / k.page_size, .high = s.swap_high.bytes() / k.page_size};
  return model::penalty(model::PenaltyInput{.memory = {&memory, 1}, .swap = {&swap, 1}, .nr_pages = 64}, k);
}

TEST(SwapForecast, OverSwapHighAloneIsForecastWithTheSwapTermOnly) {
  model::Kernel k{.hz = 250};
  Pair p = over_swap_high();
  p.b.current = p.a.current + 10 * 4096;
  p.b.swap_current = 4 * kMiB + 4 * kMiB / 10;  // 10% over
  Forecast f = forecast(p.b, p.rates(), k, 1);
  ASSERT_TRUE(f.valid);
  EXPECT_EQ(f.over_percent, 0);
  EXPECT_NEAR(f.swap_over_percent, 10, 0.05);
  EXPECT_EQ(f.memory_delay_ms, 0);
  model::Penalty want = kernel_penalty(p.b, k);
  EXPECT_DOUBLE_EQ(f.swap_delay_ms, model::jiffies_to_ms(want.unclamped_jiffies, k));
  ASSERT_TRUE(want.sleeps);
  EXPECT_DOUBLE_EQ(f.sleep_s, model::jiffies_to_ms(want.jiffies, k) / 1000);
  EXPECT_GT(f.sleep_wheel_s, 0);
  EXPECT_FALSE(f.clamped);
  // To memory.max: measured, but no model bound (model::grow has no swap term).
  ASSERT_TRUE(f.max_eta_s);
  EXPECT_NEAR(*f.max_eta_s, double(kMax - p.b.current) / (10 * 4096), 1e-6);
  EXPECT_FALSE(f.max_eta_per_batch_s);
  EXPECT_FALSE(f.max_eta_per_page_s);
  // Under memory.swap.high there is nothing to forecast.
  p.b.swap_current = 4 * kMiB;
  EXPECT_FALSE(forecast(p.b, p.rates(), k, 1).valid);
}

// 13% over memory.high and 13% over memory.swap.high at HZ=250: each term
// is about 270 jiffies, under the 500 of the clamp; the kernel clamps the
// sum, so the sleep is the clamp's 2 s, not either term.
TEST(SwapForecast, TheSleepIsBothTermsAddedThenClamped) {
  model::Kernel k{.hz = 250};
  Pair p;
  uint64_t high_pages = kHigh / 4096;
  p.b.current = (high_pages + high_pages * 13 / 100) * 4096;
  p.b.swap_high = Limit::of(4 * kMiB);
  p.b.swap_current = 4 * kMiB + 4 * kMiB * 13 / 100;
  Forecast f = forecast(p.b, {}, k, 1);
  ASSERT_TRUE(f.valid);
  model::Penalty want = kernel_penalty(p.b, k);
  EXPECT_DOUBLE_EQ(f.memory_delay_ms + f.swap_delay_ms, model::jiffies_to_ms(want.unclamped_jiffies, k));
  EXPECT_LT(f.memory_delay_ms, 2000);
  EXPECT_LT(f.swap_delay_ms, 2000);
  EXPECT_GT(f.memory_delay_ms + f.swap_delay_ms, 2000);
  EXPECT_TRUE(f.clamped);
  EXPECT_TRUE(want.clamped);
  EXPECT_DOUBLE_EQ(f.sleep_s, 2.0);  // 2 * HZ jiffies
  // The same memory.current without the swap term: one term, no clamp.
  p.b.swap_current = 4 * kMiB;
  Forecast memory_only = forecast(p.b, {}, k, 1);
  EXPECT_EQ(memory_only.swap_delay_ms, 0);
  EXPECT_DOUBLE_EQ(memory_only.memory_delay_ms, f.memory_delay_ms);
  EXPECT_DOUBLE_EQ(memory_only.sleep_s, f.memory_delay_ms / 1000);
  EXPECT_FALSE(memory_only.clamped);
}

// A memory.swap.high that is missing (no CONFIG_SWAP) or malformed is no
// swap term: its default, max, is no fact to forecast on.
TEST(SwapForecast, AMissingOrMalformedSwapHighGivesNoSwapTerm) {
  Pair p = over_swap_high();
  p.b.read &= ~bit(File::swap_high);
  EXPECT_FALSE(forecast(p.b, {}, model::Kernel{}, 1).valid);
  Sample garbage = over_swap_high().b;
  garbage.read &= ~bit(File::swap_high);
  garbage.swap_high = Limit::max();
  parse_into(garbage, File::swap_high, "4M\n");
  EXPECT_TRUE(garbage.malformed & bit(File::swap_high));
  EXPECT_FALSE(forecast(garbage, {}, model::Kernel{}, 1).valid);
  EXPECT_FALSE(classify(garbage, {}, {.first = true}).reasons & kOverSwapHigh);
}

TEST(SwapSample, ParsesTheSwapFilesAndTheCountersOfLaterKernels) {
  Sample s;
  parse_into(s, File::swap_events, "high 34\nmax 2\nfail 1\n");
  parse_into(s, File::swap_high, "4194304\n");
  parse_into(s, File::zswap_current, "1048576\n");
  EXPECT_EQ(s.swap_events.high, 34u);
  EXPECT_EQ(s.swap_events.max, 2u);
  EXPECT_EQ(s.swap_events.fail, 1u);
  EXPECT_EQ(s.swap_high.bytes(), 4194304u);
  EXPECT_EQ(s.zswap_current, 1048576u);
  // 6.12: none of the four keys; 6.13+: pswpin and pswpout; with zswap, zswpin and zswpout.
  parse_into(s, File::stat, "anon 1\nworkingset_refault_anon 5\nswpin_zero 3\n");
  EXPECT_EQ(s.stat_keys, 0u);
  EXPECT_EQ(s.refault_anon, 5u);
  parse_into(s, File::stat, "anon 1\npswpin 7\npswpout 8\nzswpin 9\nzswpout 10\nzswpwb 11\n");
  EXPECT_EQ(s.stat_keys, kPswpin | kPswpout | kZswpin | kZswpout);
  EXPECT_EQ(s.pswpin + s.pswpout + s.zswpin + s.zswpout, 34u);
  Sample bad;
  parse_into(bad, File::stat, "anon 1\npswpin lots\n");
  EXPECT_EQ(bad.stat_keys, 0u);
  EXPECT_EQ(bad.pswpin, 0u);
  parse_into(bad, File::swap_events, "hgh 1\n");
  EXPECT_TRUE(bad.malformed & bit(File::swap_events));
}

}  // namespace
}  // namespace cgmem::watch
