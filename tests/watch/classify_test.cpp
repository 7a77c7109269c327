// The classifier and the forecast on sample pairs: each test states the
// counters of two reads one interval apart and the state they must give.
// The numbers are the study's (memory.high vs memory.max, measured) or the
// VM's (docs/watch.md); fixture sequences captured in the VM are in
// sequence_test.cpp.
#include <gtest/gtest.h>

#include "model/predict.h"
#include "watch/classify.h"
#include "watch/forecast.h"

namespace cgmem::watch {
namespace {

constexpr uint64_t kSecond = 1000000000;
constexpr uint64_t kHigh = 30195712;  // 28.8 MiB, page-rounded: the VM lab's memory.high
constexpr uint64_t kMax = 33554432;   // 32 MiB

Sample base() {
  Sample s;
  s.t_ns = 10 * kSecond;
  s.read = ~0u;
  s.current = 20 << 20;
  return s;
}

Classification verdict(const Sample& a, const Sample& b, uint32_t over_high_tasks = 0) {
  return classify(b, rates_between(a, b), {.tasks_over_high = over_high_tasks});
}

TEST(Classify, FirstSampleHasNoRatesAndUsesLevelsOnly) {
  Sample s = base();
  s.high = Limit::of(kHigh);
  s.current = kHigh - 100 * 4096;  // 98.6% of memory.high
  Classification v = classify(s, {}, {.first = true});
  EXPECT_EQ(v.state, State::near_high);
  EXPECT_TRUE(v.reasons & kFirstSample);
  s.current = kHigh / 2;
  EXPECT_EQ(classify(s, {}, {.first = true}).state, State::ok);
}

TEST(Classify, HighRisingWhilePsiSaysAsleepIsThrottled) {
  Sample a = base(), b = base();
  a.high = b.high = Limit::of(kHigh);
  a.current = kHigh + (1 << 20), b.current = a.current + 64 * 4096;
  b.t_ns = a.t_ns + kSecond;
  a.local.high = 309, b.local.high = 309 + 340;  // 20 sleeps of 17
  a.memory.some_usec = 6027841, b.memory.some_usec = 6027841 + 980000;
  Rates r = rates_between(a, b);
  EXPECT_DOUBLE_EQ(r.sleeps_per_s, 20.0);
  EXPECT_NEAR(r.memory_some, 0.98, 1e-9);
  Classification v = classify(b, r, {});
  EXPECT_EQ(v.state, State::throttled);
  EXPECT_TRUE(v.reasons & kHighRising);
  EXPECT_TRUE(v.reasons & kMemoryStalled);
  EXPECT_TRUE(v.reasons & kOverHigh);
}

TEST(Classify, HighRisingWithNothingReclaimedIsThrottledEvenWithoutPsi) {
  Sample a = base(), b = base();
  b.t_ns += kSecond;
  b.local.high = 17;
  EXPECT_EQ(verdict(a, b).state, State::throttled);
}

TEST(Classify, ATaskInOverHighCountsAsAsleep) {
  Sample a = base(), b = base();
  b.t_ns += kSecond;
  b.local.high = 40, b.pgsteal = 10;  // reclaim freed a little
  EXPECT_EQ(verdict(a, b).state, State::reclaiming);
  Classification v = verdict(a, b, 1);
  EXPECT_EQ(v.state, State::throttled);
  EXPECT_TRUE(v.reasons & kTasksOverHigh);
}

TEST(Classify, MemoryPsiFromRefaultsIsNotSleepingOverHigh) {
  // Page cache at memory.high: the tasks wait for refaulted pages (memory
  // PSI) while reclaim frees pages; nobody is in mem_cgroup_handle_over_high.
  Sample a = base(), b = base();
  b.t_ns += kSecond;
  b.local.high = 3, b.pgsteal = 900, b.refault_file = 600;
  b.memory.some_usec = 150000;
  EXPECT_EQ(verdict(a, b).state, State::reclaiming);
  EXPECT_EQ(verdict(a, b, 1).state, State::throttled);
}

TEST(Classify, HighRisingWhileReclaimFreesAndNobodySleepsIsReclaiming) {
  // The study's page cache under memory.high: rises of 1 or 2 per op, pgsteal rising, PSI ~0.
  Sample a = base(), b = base();
  b.t_ns += kSecond;
  a.local.high = 400, b.local.high = 430;
  a.pgsteal = 20000, b.pgsteal = 21000;
  b.memory.some_usec = 300;
  Classification v = verdict(a, b);
  EXPECT_EQ(v.state, State::reclaiming);
  EXPECT_TRUE(v.reasons & kReclaimFrees);
}

TEST(Classify, RefaultsAndStealWithIoStalledIsThrashingWhateverMemoryPsiSays) {
  // The study's own-code run under memory.max: memory some 8%, io some 85%.
  Sample a = base(), b = base();
  b.t_ns += kSecond;
  a.local.max = 100, b.local.max = 900;
  a.refault_file = 1000, b.refault_file = 1000 + 24000;
  a.pgsteal = 5000, b.pgsteal = 5000 + 25000;
  b.pgmajfault = 20000;  // the code is faulted back in
  b.memory.some_usec = 80000;
  b.io.some_usec = 850000;
  Classification v = verdict(a, b);
  EXPECT_EQ(v.state, State::thrashing);
  EXPECT_TRUE(v.reasons & kRefaulting);
  EXPECT_TRUE(v.reasons & kIoStalled);
  EXPECT_TRUE(v.reasons & kMajorFaults);
  EXPECT_FALSE(v.reasons & kMemoryStalled);
  // A parent's memory.stat and PSI include the thrashing child's: the child gets the state.
  EXPECT_EQ(classify(b, rates_between(a, b), {.inner = true}).state, State::at_max);
}

TEST(Classify, AFileReadBackWithoutMajorFaultsIsACappedCacheNotThrashing) {
  // Measured in the VM: page cache read() past memory.max refaults and waits
  // for the disk, but no task faults anything in (pgmajfault stays 0).
  Sample a = base(), b = base();
  b.t_ns += 2 * kSecond;
  a.local.max = 100, b.local.max = 400;
  a.refault_file = 16000, b.refault_file = 17472;
  a.pgsteal = 20347, b.pgsteal = 21819;
  b.io.some_usec = 1000000;
  Classification v = verdict(a, b);
  EXPECT_EQ(v.state, State::at_max);
  EXPECT_TRUE(v.reasons & kRefaulting);
  EXPECT_FALSE(v.reasons & kMajorFaults);
}

TEST(Classify, RefaultsWithoutIoStallAreNotThrashing) {
  Sample a = base(), b = base();
  b.t_ns += kSecond;
  b.refault_file = 24000, b.pgsteal = 25000;
  b.io.some_usec = 50000;  // 5%
  EXPECT_EQ(verdict(a, b).state, State::ok);
}

TEST(Classify, MaxRisingWithoutAKillIsAtMax) {
  // The study's page cache under memory.max: max events, pgsteal, no kill.
  Sample a = base(), b = base();
  b.t_ns += kSecond;
  b.max = Limit::of(kMax), b.current = kMax;
  a.local.max = 10, b.local.max = 140;
  b.pgsteal = 8320;
  Classification v = verdict(a, b);
  EXPECT_EQ(v.state, State::at_max);
  EXPECT_TRUE(v.reasons & kMaxRising);
}

TEST(Classify, OomKillRisingIsOomKilledAndWinsOverEverything) {
  Sample a = base(), b = base();
  b.t_ns += kSecond;
  b.local.max = 35, b.local.oom = 1, b.local.oom_kill = 1;
  b.events = b.local;
  b.local.high = 1000;
  Classification v = verdict(a, b);
  EXPECT_EQ(v.state, State::oom_killed);
  EXPECT_TRUE(v.reasons & kOomKill);
  b.local.oom_kill = 0, b.local.oom_group_kill = 1;
  EXPECT_EQ(verdict(a, b).state, State::oom_killed);
}

TEST(Classify, AKillInADescendantIsEvidenceNotTheParentsState) {
  Sample a = base(), b = base();
  b.t_ns += kSecond;
  b.events.oom_kill = 1;  // hierarchical only
  Rates r = rates_between(a, b);
  EXPECT_EQ(r.descendant_oom_kill, 1u);
  Classification v = classify(b, r, {});
  EXPECT_EQ(v.state, State::ok);
  EXPECT_TRUE(v.reasons & kDescendantKill);
}

TEST(Classify, CountersGoingBackwardsAreNoRise) {
  Sample a = base(), b = base();
  b.t_ns += kSecond;
  a.local.high = 500, a.local.oom_kill = 3, a.pgsteal = 100;
  Rates r = rates_between(a, b);
  EXPECT_EQ(r.rise.high, 0u);
  EXPECT_EQ(r.rise.oom_kill, 0u);
  EXPECT_EQ(r.pgsteal_per_s, 0.0);
  EXPECT_EQ(classify(b, r, {}).state, State::ok);
}

TEST(Classify, SeverityOrdersTheStatesForTop) {
  EXPECT_GT(severity(State::oom_killed), severity(State::throttled));
  EXPECT_GT(severity(State::throttled), severity(State::thrashing));
  EXPECT_GT(severity(State::thrashing), severity(State::swapping));
  EXPECT_GT(severity(State::swapping), severity(State::at_max));
  EXPECT_GT(severity(State::at_max), severity(State::reclaiming));
  EXPECT_GT(severity(State::reclaiming), severity(State::near_high));
  EXPECT_GT(severity(State::near_high), severity(State::unknown));
  EXPECT_GT(severity(State::unknown), severity(State::ok));
  EXPECT_GT(severity(State::ok), severity(State::gone));
  EXPECT_EQ(state_name(State::near_high), "near_high");
  EXPECT_EQ(state_name(State::oom_killed), "oom_killed");
  EXPECT_EQ(state_name(State::unknown), "unknown");
  EXPECT_EQ(state_name(State::swapping), "swapping");
}

// One sleep per page: 20 sleeps while 20 pages were faulted in.
TEST(Forecast, PagesPerSleepNearOneIsThePerPageRegime) {
  model::Kernel k{.hz = 250};
  Sample a = base(), b = base();
  a.high = b.high = Limit::of(kHigh);
  a.max = b.max = Limit::of(kMax);
  a.current = kHigh + (1 << 20), b.current = a.current + 20 * 4096;
  b.t_ns = a.t_ns + 2 * kSecond;
  a.local.high = 0, b.local.high = 20 * 17;
  a.pgfault = 1000, b.pgfault = 1020;
  Forecast f = forecast(b, rates_between(a, b), k, 1);
  ASSERT_TRUE(f.valid);
  EXPECT_EQ(f.regime, Regime::per_page);
  EXPECT_NEAR(f.pages_per_sleep, 1.0, 1e-9);
  model::Throttle t{.kernel = k, .high = kHigh};
  EXPECT_DOUBLE_EQ(f.sleep_s, model::sleep_seconds(t, b.current));
  EXPECT_GT(f.sleep_wheel_s, f.sleep_s);
  ASSERT_TRUE(f.max_eta_s && f.max_eta_per_batch_s && f.max_eta_per_page_s);
  EXPECT_NEAR(*f.max_eta_s, double(kMax - b.current) / (20 * 4096 / 2.0), 1e-6);
  t.sleeps_per_batch = 64;
  EXPECT_DOUBLE_EQ(*f.max_eta_per_page_s, model::grow(t, b.current, kMax).seconds);
  EXPECT_GT(*f.max_eta_per_page_s, 30 * *f.max_eta_per_batch_s);
}

TEST(Forecast, SixtyFourPagesPerSleepIsThePerBatchRegime) {
  Sample a = base(), b = base();
  a.high = b.high = Limit::of(kHigh);
  a.current = kHigh + (1 << 20), b.current = a.current + 2 * 64 * 4096;
  b.t_ns = a.t_ns + kSecond;
  b.local.high = 2 * 17;
  Forecast f = forecast(b, rates_between(a, b), model::Kernel{.hz = 250}, 1);
  EXPECT_EQ(f.regime, Regime::per_batch);
  EXPECT_NEAR(f.pages_per_sleep, 64.0, 1e-9);
  EXPECT_FALSE(f.max_eta_per_page_s);  // no memory.max: no kill to forecast
}

TEST(Forecast, UnderMemoryHighThereIsNoForecast) {
  Sample s = base();
  s.high = Limit::of(kHigh);
  EXPECT_FALSE(forecast(s, {}, model::Kernel{}, 1).valid);
  s.high = Limit::max();
  s.current = 1ull << 40;
  EXPECT_FALSE(forecast(s, {}, model::Kernel{}, 1).valid);
}

// Values that are no facts: never ok, whatever the counters say.
TEST(Classify, UnparsedCurrentHighOrMaxIsUnknownWithTheReason) {
  for (const char* text : {"garbage\n", "-4096\n", "18446744073709551616\n", ""}) {
    Sample s = base();
    s.read = 0;
    parse_into(s, File::current, text);
    parse_into(s, File::high, "max\n");
    Classification v = classify(s, {}, {.first = true});
    EXPECT_EQ(v.state, State::unknown) << text;
    EXPECT_EQ(v.reasons, uint32_t(kCurrentMalformed)) << text;
  }
  Sample unreadable = base();
  unreadable.read &= ~bit(File::current);
  unreadable.unreadable = bit(File::current);
  EXPECT_EQ(classify(unreadable, {}, {}).reasons, uint32_t(kCurrentUnreadable));
  Sample high = base(), max = base();
  parse_into(high, File::high, "30M\n");
  parse_into(max, File::max, "-1\n");
  EXPECT_EQ(classify(high, {}, {}).state, State::unknown);
  EXPECT_EQ(classify(high, {}, {}).reasons, uint32_t(kHighMalformed));
  EXPECT_EQ(classify(max, {}, {}).reasons, uint32_t(kMaxMalformed));
  // A missing memory.high (the root has none) is max, and a fact.
  Sample root = base();
  root.read &= ~bit(File::high);
  EXPECT_EQ(classify(root, {}, {.first = true}).state, State::ok);
  // No forecast and no growth on such values.
  Sample a = base(), b = base();
  b.t_ns = a.t_ns + kSecond;
  b.read &= ~bit(File::current), b.malformed = bit(File::current), b.current = 0;
  EXPECT_EQ(rates_between(a, b).growth_bytes_per_s, 0);
  high.current = kMax;
  EXPECT_FALSE(forecast(high, {}, {}, 0).valid);
}

}  // namespace
}  // namespace cgmem::watch

namespace cgmem::watch {
namespace {

// The forecast names the stock rule of its kernel.
TEST(ForecastRule, TheRegimeRuleIsTheKernelsStockRule) {
  Sample s = base();
  s.high = Limit::of(kHigh);
  s.current = kHigh + (1 << 20);
  Forecast on612 = forecast(s, {}, model::Kernel{.hz = 250}, 1);
  ASSERT_TRUE(on612.valid);
  EXPECT_EQ(on612.regime_rule, "per page when any other cgroup charges on this CPU");
  Forecast on616 = forecast(s, {}, model::Kernel{.hz = 250, .rules = model::rules_for({6, 16})}, 1);
  EXPECT_EQ(on616.regime_rule, "per page needs 7 or more other cgroups charging on this CPU");
  Forecast patched = forecast(s, {}, model::Kernel{.hz = 250, .rules = model::rules_for({6, 12}, 3)}, 1);
  EXPECT_EQ(patched.regime_rule, "per page needs 3 or more other cgroups charging on this CPU");
  s.current = kHigh;
  EXPECT_TRUE(forecast(s, {}, model::Kernel{}, 1).regime_rule.empty());  // no forecast, no rule
}

}  // namespace
}  // namespace cgmem::watch
