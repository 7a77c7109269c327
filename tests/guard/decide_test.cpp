// The guard's decisions on synthetic sequences: which rule fires when, the
// episode and back-off bookkeeping, and what it never touches.
#include "guard/decide.h"

#include <gtest/gtest.h>

#include "feed.h"
#include "guard/limits.h"
#include "rows.h"

namespace cgmem::guard {
namespace {

using testing::kHigh;
using testing::kMax;
using testing::Series;
using testing::feed;
using testing::policy;
using watch::State;

const char* kKillThrottled = R"(
[[rules]]
name = "leaks"
match = "^/jobs/"
action = "kill"
throttled_for = "10s"
)";

TEST(Decide, KillsAfterBeingThrottledForT) {
  Policy p = policy(kKillThrottled);
  Guard g(p, {});
  Series s{.path = "/jobs/leak"};
  s.next(State::near_high, kHigh - 4096);
  EXPECT_TRUE(feed(g, s).empty());
  int fired_at = 0;
  for (int i = 0; i < 20 && !fired_at; ++i) {
    auto d = feed(g, (s.next(State::throttled, kHigh + uint64_t(i) * 4096, 17), s));
    if (!d.empty()) {
      fired_at = int(s.rows.size());
      EXPECT_EQ(d[0].verb, Verb::kill);
      EXPECT_EQ(d[0].rule->name, "leaks");
      EXPECT_EQ(*d[0].evidence.throttled_s, 10);
      EXPECT_EQ(d[0].why.substr(0, 36), "throttled for 10.0s (rule: 10.0s), m");
    }
  }
  EXPECT_EQ(fired_at, 11);  // throttled from t = 1 (the first throttled interval's start) to t = 11
}

TEST(Decide, NeverOnUnknownValues) {
  Policy p = policy(kKillThrottled);
  Guard g(p, {});
  Series s{.path = "/jobs/leak"};
  s.next(State::near_high, kHigh - 4096);
  EXPECT_TRUE(feed(g, s).empty());
  // 30 s of rows whose memory.current was garbage (read as 0), the high counter rising.
  for (int i = 0; i < 30; ++i) {
    watch::Row& r = s.next(State::unknown, 0, 17);
    r.sample.read &= ~watch::bit(watch::File::current);
    r.sample.malformed = watch::bit(watch::File::current);
    r.reasons = watch::kCurrentMalformed;
    EXPECT_TRUE(feed(g, s).empty()) << i;
  }
}

TEST(Decide, AGapLongerThanTheLongestSleepEndsTheEpisode) {
  Policy p = policy(kKillThrottled);
  Guard g(p, {});
  Series s{.path = "/jobs/a"};
  s.next(State::ok, kHigh);
  for (int i = 0; i < 6; ++i) EXPECT_TRUE(feed(g, (s.next(State::throttled, kHigh, 17), s)).empty());
  // Three seconds with no sleep counted: over the 2.5 s gap, the episode ends.
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(feed(g, (s.next(State::near_high, kHigh), s)).empty());
  for (int i = 0; i < 9; ++i) EXPECT_TRUE(feed(g, (s.next(State::throttled, kHigh, 17), s)).empty());
  EXPECT_EQ(feed(g, (s.next(State::throttled, kHigh, 17), s)).size(), 1u);
}

TEST(Decide, ATaskInOneLongSleepDoesNotEndTheEpisode) {
  // Scans every second; a 2 s capped sleep shows two intervals with nothing rising.
  Policy p = policy(kKillThrottled);
  Guard g(p, {});
  Series s{.path = "/jobs/a"};
  s.next(State::ok, kHigh);
  size_t fired = 0;
  for (int i = 0; i < 12 && !fired; ++i) {
    bool rising = i % 3 == 0;
    if (!feed(g, (s.next(rising ? State::throttled : State::near_high, kHigh, rising ? 17 : 0), s)).empty())
      fired = s.rows.size();
  }
  EXPECT_EQ(fired, 11u);  // 10 s after the episode began at t = 1, as without the gaps
}

TEST(Decide, NeverTheRootNorACgroupNoRuleMatches) {
  Policy p = policy("[[rules]]\nname = \"all\"\nmatch = \".\"\naction = \"kill\"\nthrottled_for = \"1s\"\n"
                    "[[rules]]\nname = \"x\"\nmatch = \"^/x\"\naction = \"kill\"\nthrottled_for = \"1s\"\n");
  Guard g(p, {});
  Series root{.path = "/", .id = 1};
  for (int i = 0; i < 5; ++i) EXPECT_TRUE(feed(g, (root.next(State::throttled, kHigh, 17), root)).empty());
  Policy q = policy("[[rules]]\nname = \"x\"\nmatch = \"^/x\"\naction = \"kill\"\nthrottled_for = \"1s\"\n");
  Guard h(q, {});
  Series other{.path = "/y", .id = 2};
  for (int i = 0; i < 5; ++i) EXPECT_TRUE(feed(h, (other.next(State::throttled, kHigh, 17), other)).empty());
}

TEST(Decide, AfterADecisionTheCgroupIsQuietForPerCgroup) {
  Policy p = policy(std::string("[limits]\nper_cgroup = \"5s\"\n") + kKillThrottled);
  Guard g(p, {});
  Series s{.path = "/jobs/a"};
  s.next(State::ok, kHigh);
  std::vector<size_t> fired;
  for (int i = 0; i < 30; ++i)
    if (!feed(g, (s.next(State::throttled, kHigh, 17), s)).empty()) fired.push_back(s.rows.size());
  EXPECT_EQ(fired, (std::vector<size_t>{11, 16, 21, 26, 31}));  // dry run: the condition still holds
}

TEST(Decide, TheLeakRuleKillsACrawlAndLeavesAFittingProgramAlone) {
  Policy p = policy("[[rules]]\nname = \"leaks\"\nmatch = \".\"\naction = \"kill\"\neta_over = \"20s\"\n"
                    "min_rise = \"1M\"\n");
  Guard g(p, {});
  // anon-fit: throttled, but churning at the same usage (one chunk up, one down).
  Series fit{.path = "/fit", .id = 1};
  fit.next(State::ok, kHigh + (1 << 20));
  for (int i = 0; i < 120; ++i) {
    uint64_t wobble = (i % 2) ? 256 << 10 : 0;
    EXPECT_TRUE(feed(g, (fit.next(State::throttled, kHigh + (1 << 20) + wobble, 17), fit)).empty()) << i;
  }
  // The leak: 64 KiB/s; at the 1 MiB min_rise memory.max is 2.2 MiB (35 s) away.
  Series leak{.path = "/leak", .id = 2};
  leak.next(State::ok, kHigh);
  size_t fired = 0;
  for (int i = 1; i <= 40 && !fired; ++i) {
    auto d = feed(g, (leak.next(State::throttled, kHigh + uint64_t(i) * (64 << 10), 16 * 17), leak));
    if (!d.empty()) {
      fired = leak.rows.size();
      EXPECT_GT(*d[0].evidence.eta_s, 20);
      EXPECT_NE(d[0].why.find("it will crawl"), std::string::npos) << d[0].why;
    }
  }
  EXPECT_EQ(fired, 17u);  // 16 intervals of 64 KiB: the 1 MiB min_rise
}

TEST(Decide, TheRiseCountsFromMemoryHighAtTheLowest) {
  // The VM's fit workload: 3 MiB below memory.high a second before it is
  // throttled, then its last chunks at one page per sleep (16 KiB/s) up to
  // 1 MiB over memory.high, then flat. Counted from the sample before, the
  // rise would be 4 MiB and memory.max 33 s away at that average: a kill.
  Policy p = policy("[[rules]]\nname = \"leaks\"\nmatch = \".\"\naction = \"kill\"\neta_over = \"30s\"\n"
                    "min_rise = \"2M\"\n");
  Guard g(p, {});
  Series fit{.path = "/fit"};
  fit.next(State::ok, kHigh - (3 << 20));
  for (uint64_t i = 0; i < 120; ++i) {
    uint64_t current = kHigh + (256 << 10) + std::min<uint64_t>(i, 48) * (16 << 10);
    auto d = feed(g, (fit.next(State::throttled, current, 4 * 17), fit));
    EXPECT_TRUE(d.empty()) << i << ": " << d.front().why;
  }
}

TEST(Decide, ThrashingForT) {
  Policy p = policy("[[rules]]\nname = \"t\"\nmatch = \".\"\naction = \"kill\"\nthrash_for = \"3s\"\n");
  Guard g(p, {});
  Series s{.path = "/own-code"};
  s.next(State::ok, kHigh);
  EXPECT_TRUE(feed(g, (s.next(State::thrashing, kMax), s)).empty());
  EXPECT_TRUE(feed(g, (s.next(State::thrashing, kMax), s)).empty());
  auto d = feed(g, (s.next(State::thrashing, kMax), s));
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].why.substr(0, 29), "thrashing for 3.0s (rule: 3.0");
  EXPECT_FALSE(d[0].evidence.throttled_s);
}

TEST(Decide, RaiseHighStepsWithBackOffUpToTheCeilingThenRestores) {
  Policy p = policy("[[rules]]\nname = \"svc\"\nmatch = \".\"\naction = \"raise-high\"\nstep = \"1M\"\n"
                    "ceiling = \"31M\"\nbackoff = \"2s\"\nrestore_after = \"3s\"\n");
  Guard g(p, {});
  Series s{.path = "/svc"};
  Limit high = Limit::of(kHigh);
  s.next(State::ok, kHigh + (2 << 20), 0, high);
  std::vector<std::pair<size_t, uint64_t>> raises;
  for (int i = 0; i < 12; ++i) {
    auto d = feed(g, (s.next(State::throttled, kHigh + (2 << 20), 17, high), s), true);
    if (d.empty()) continue;
    ASSERT_EQ(d[0].verb, Verb::raise_high);
    EXPECT_EQ(d[0].expected_high, high);
    raises.emplace_back(s.rows.size(), d[0].new_high.bytes());
    high = d[0].new_high;  // as if written
  }
  // +1 MiB at t = 2, after 2 s at 4, after 4 s at 8; then 31 MiB is the ceiling.
  ASSERT_EQ(raises.size(), 3u);
  EXPECT_EQ(raises[0], std::make_pair(size_t(2), kHigh + (1 << 20)));
  EXPECT_EQ(raises[1], std::make_pair(size_t(4), kHigh + (2 << 20)));
  EXPECT_EQ(raises[2], std::make_pair(size_t(8), uint64_t(31 << 20)));
  // The pressure is gone: usage back under the original memory.high for 3 s.
  std::vector<Decision> restore;
  for (int i = 0; i < 5 && restore.empty(); ++i) restore = feed(g, (s.next(State::ok, kHigh - (1 << 20), 0, high), s), true);
  ASSERT_EQ(restore.size(), 1u);
  EXPECT_EQ(restore[0].verb, Verb::restore);
  EXPECT_EQ(restore[0].new_high, Limit::of(kHigh));
  EXPECT_EQ(*restore[0].evidence.under_s, 3);
}

TEST(Decide, RaiseHighNeverWithoutACeiling) {
  Policy p = policy("[[rules]]\nname = \"svc\"\nmatch = \".\"\naction = \"raise-high\"\nstep = \"10%\"\n");
  Guard g(p, {});
  Series s{.path = "/svc"};
  s.next(State::ok, kHigh);
  watch::Row& r = s.next(State::throttled, kHigh + (1 << 20), 17);
  r.sample.max = Limit::max();
  EXPECT_TRUE(feed(g, s).empty());
}

TEST(Decide, EmulateShiftKillsAtOnceWhenTheShiftedKernelWouldNotSleep) {
  Policy p = policy("[[rules]]\nname = \"rfc\"\nmatch = \".\"\naction = \"emulate-shift\"\nshift = 8\n");
  Guard g(p, {});
  Series s{.path = "/rfc"};
  s.next(State::near_high, kHigh - 4096);
  EXPECT_TRUE(feed(g, s).empty());
  // 2 MiB in a second, 0.9 s of it in 12 sleeps of 77 ms: at shift 8 no
  // sleep, and the 1.2 MiB left take the program 0.16 ms a page.
  auto d = feed(g, (s.next(State::throttled, kHigh + (2 << 20), 12 * 17), s));
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].verb, Verb::kill);
  ASSERT_TRUE(d[0].evidence.shift);
  EXPECT_LT(d[0].evidence.shift->remaining_s, 0.1);
  EXPECT_NE(d[0].why.find("memory.high.throttle = 8"), std::string::npos) << d[0].why;
}

TEST(Decide, AGoneCgroupIsForgotten) {
  Policy p = policy(kKillThrottled);
  Guard g(p, {});
  Series s{.path = "/jobs/a"};
  s.next(State::ok, kHigh);
  for (int i = 0; i < 9; ++i) feed(g, (s.next(State::throttled, kHigh, 17), s));
  EXPECT_TRUE(feed(g, (s.next(State::gone, kHigh), s)).empty());
  // The same id again (a new cgroup would have a new inode; this checks the reset).
  for (int i = 0; i < 9; ++i) EXPECT_TRUE(feed(g, (s.next(State::throttled, kHigh, 17), s)).empty());
}

TEST(RateLimit, AtMostNInAnySixtySeconds) {
  RateLimit limit(2);
  EXPECT_TRUE(limit.take(0));
  EXPECT_TRUE(limit.take(1));
  EXPECT_FALSE(limit.take(30));
  EXPECT_TRUE(limit.take(60.5));
  EXPECT_FALSE(limit.take(60.7));
  EXPECT_TRUE(limit.take(61.5));
}

}  // namespace
}  // namespace cgmem::guard
