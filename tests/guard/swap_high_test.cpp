// The guard on a cgroup throttled by memory.swap.high: the kernel adds the
// swap term to the sleep (mm/memcontrol.c, mem_cgroup_handle_over_high,
// 6.12), so the cgroup crawls with memory.current under memory.high. Its
// growth since the throttle began counts from the sample before (not from
// memory.high), the decision names memory.swap.high, and raise-high leaves
// it alone (a higher memory.high would not end that throttle).
#include <gtest/gtest.h>

#include "feed.h"
#include "guard/decide.h"
#include "rows.h"

namespace cgmem::guard {
namespace {

using testing::kHigh;
using testing::Series;
using testing::feed;
using testing::policy;
using watch::State;

constexpr uint64_t kSwapHigh = 4 << 20;

// One second throttled by the swap term alone: memory.current under
// memory.high, memory.swap.current over memory.swap.high, 17 swap passes.
watch::Row& swap_throttled(Series& s, uint64_t current) {
  watch::Row& r = s.next(State::throttled, current);
  r.sample.swap_high = Limit::of(kSwapHigh);
  r.sample.swap_current = kSwapHigh + (1 << 20);
  r.reasons = watch::kSwapHighRising | watch::kOverSwapHigh | watch::kTasksOverHigh;
  r.rates.swap_rise.high = 17;
  return r;
}

TEST(GuardSwapHigh, ACrawlUnderMemoryHighIsCountedFromTheSampleBefore) {
  Policy p = policy("[[rules]]\nname = \"leaks\"\nmatch = \".\"\naction = \"kill\"\neta_over = \"20s\"\n"
                    "min_rise = \"1M\"\n");
  Guard g(p, {});
  Series s{.path = "/leak"};
  const uint64_t start = kHigh - (8 << 20);
  s.next(State::ok, start);
  size_t fired = 0;
  for (int i = 1; i <= 40 && !fired; ++i) {
    auto d = feed(g, (swap_throttled(s, start + uint64_t(i) * (64 << 10)), s));
    if (d.empty()) continue;
    fired = s.rows.size();
    ASSERT_TRUE(d[0].evidence.rise && d[0].evidence.eta_s);
    EXPECT_EQ(*d[0].evidence.rise, uint64_t(i) * (64 << 10));
    EXPECT_GT(*d[0].evidence.eta_s, 20);
    EXPECT_EQ(d[0].why.rfind("grew 1MiB in 16.0s over memory.swap.high: memory.max in ", 0), 0u) << d[0].why;
  }
  // 16 intervals of 64 KiB: the 1 MiB min_rise. Counted from memory.high, as
  // for the memory term, it would never have started.
  EXPECT_EQ(fired, 17u);
}

TEST(GuardSwapHigh, ThrottledForTNamesTheSwapLimit) {
  Policy p = policy("[[rules]]\nname = \"leaks\"\nmatch = \".\"\naction = \"kill\"\nthrottled_for = \"5s\"\n");
  Guard g(p, {});
  Series s{.path = "/svc"};
  s.next(State::ok, kHigh - (1 << 20));
  std::vector<Decision> d;
  for (int i = 0; i < 10 && d.empty(); ++i) d = feed(g, (swap_throttled(s, kHigh - (1 << 20)), s));
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].verb, Verb::kill);
  EXPECT_EQ(d[0].why, "throttled for 5.0s (rule: 5.0s), memory.swap.current 5MiB over memory.swap.high 4MiB");
  // Over both limits: both are named.
  Guard both(p, {});
  Series t{.path = "/svc2", .id = 7};
  t.next(State::ok, kHigh + (1 << 20));
  d.clear();
  for (int i = 0; i < 10 && d.empty(); ++i) {
    watch::Row& r = swap_throttled(t, kHigh + (1 << 20));
    r.rates.rise.high = 17;
    d = feed(both, t);
  }
  ASSERT_EQ(d.size(), 1u);
  EXPECT_NE(d[0].why.find("memory.high 28.8MiB and memory.swap.current 5MiB over memory.swap.high 4MiB"),
            std::string::npos)
      << d[0].why;
}

TEST(GuardSwapHigh, RaiseHighLeavesAThrottleOfTheSwapTermAlone) {
  Policy p = policy("[[rules]]\nname = \"svc\"\nmatch = \".\"\naction = \"raise-high\"\nstep = \"1M\"\n"
                    "ceiling = \"31M\"\n");
  Guard g(p, {});
  Series s{.path = "/svc"};
  s.next(State::ok, kHigh - (1 << 20));
  for (int i = 0; i < 10; ++i) EXPECT_TRUE(feed(g, (swap_throttled(s, kHigh - (1 << 20)), s)).empty()) << i;
  // Over memory.high as well: raising it lifts the memory term.
  auto d = feed(g, (swap_throttled(s, kHigh + (1 << 20)), s));
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].verb, Verb::raise_high);
  EXPECT_EQ(d[0].new_high, Limit::of(kHigh + (1 << 20)));
}

TEST(GuardSwapHigh, AReportRuleWithoutConditionsReportsSwapping) {
  Policy p = policy("[[rules]]\nname = \"all\"\nmatch = \".\"\naction = \"report\"\n");
  Guard g(p, {});
  Series s{.path = "/svc"};
  s.next(State::ok, kHigh);
  auto d = feed(g, (s.next(State::swapping, kHigh), s));
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].why, "swapping");
}

}  // namespace
}  // namespace cgmem::guard
