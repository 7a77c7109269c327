// cgmem advise's library: the usage read from runs without limits, the
// VPA rule, and the limits chosen from them, checked against the model's
// own arithmetic.
#include <gtest/gtest.h>

#include "advise/fake_runs.h"
#include "advise/recommend.h"
#include "advise/usage.h"
#include "advise/verify.h"
#include "advise/vpa.h"
#include "model/predict.h"
#include "report/read_run.h"
#include "support/temp_dir.h"

namespace cgmem::advise {
namespace {

using testing::FakeRun;
using testing::kMiB;

Result<Usage> usage(const FakeRun& f) {
  cgmem::testing::TempDir tmp;
  auto run = report::read_run(f.write(tmp.dir() / "run-r1"));
  if (!run) return std::unexpected(run.error());
  return usage_of(*run);
}

Advice advice(const FakeRun& f, Options o = {}) {
  auto u = usage(f);
  EXPECT_TRUE(u) << u.error().message();
  return recommend(*u, {u->working_set}, o);
}

model::Throttle per_page(uint64_t high) { return {.kernel = {}, .high = high, .sleeps_per_batch = 64}; }

TEST(AdviseUsage, TheWorkingSetLeavesInactivePageCacheOut) {
  auto u = usage(FakeRun{});
  ASSERT_TRUE(u) << u.error().message();
  EXPECT_EQ(u->working_set, 200 * kMiB);
  EXPECT_EQ(u->peak_current, 230 * kMiB);
  EXPECT_FALSE(u->growing);
  EXPECT_NEAR(u->growth_bytes_per_s, 0, 1);
  ASSERT_TRUE(u->alloc_rate);
  EXPECT_DOUBLE_EQ(*u->alloc_rate, 256 * 1024 / 1e-4);
  EXPECT_NEAR(u->duration_s, 5.9, 1e-9);
}

TEST(AdviseUsage, ARunStillRisingAtItsEndIsGrowing) {
  auto u = usage(FakeRun{.growing = true});
  ASSERT_TRUE(u) << u.error().message();
  EXPECT_TRUE(u->growing);
  // 200 MiB over 5.9 s, less a page's rounding.
  EXPECT_NEAR(u->growth_bytes_per_s, 200.0 * kMiB / 5.9, 0.01 * 200 * kMiB / 5.9);
}

TEST(AdviseUsage, RefusesRunsWhoseUsageALimitOrTheKillerDecided) {
  auto limited = usage(FakeRun{.limits = {{"max", 100 * kMiB}}});
  ASSERT_FALSE(limited);
  EXPECT_NE(limited.error().message().find("the run had memory.max 100MiB"), std::string::npos)
      << limited.error().message();
  auto high = usage(FakeRun{.limits = {{"high", 100 * kMiB}}});
  ASSERT_FALSE(high);
  EXPECT_NE(high.error().message().find("memory.high"), std::string::npos);
  EXPECT_TRUE(usage(FakeRun{.limits = {{"max", "max"}}})) << "max limits nothing";
  auto killed = usage(FakeRun{.status = "oom_killed"});
  ASSERT_FALSE(killed);
  EXPECT_NE(killed.error().message().find("OOM-killed"), std::string::npos);
  auto unfinished = usage(FakeRun{.outcome = false});
  ASSERT_FALSE(unfinished);
  EXPECT_NE(unfinished.error().message().find("did not finish"), std::string::npos);
  auto short_run = usage(FakeRun{.samples = 2});
  ASSERT_FALSE(short_run);
  EXPECT_NE(short_run.error().message().find("2 samples"), std::string::npos);
}

TEST(AdviseUsage, SeveralRunsGiveTheLargestWorkingSetAndOnePageSize) {
  Usage a{.dir = "a", .working_set = 100, .growth_bytes_per_s = 5, .alloc_rate = 1};
  Usage b{.dir = "b", .working_set = 300, .growth_bytes_per_s = 1, .alloc_rate = 3};
  Usage c{.dir = "c", .working_set = 200, .alloc_rate = 2};
  auto all = combined({a, b, c});
  ASSERT_TRUE(all);
  EXPECT_EQ(all->working_set, 300u);
  EXPECT_EQ(all->dir, "b");
  EXPECT_EQ(all->growth_bytes_per_s, 5);
  EXPECT_EQ(all->alloc_rate, 2);
  c.page_size = 65536;
  EXPECT_FALSE(combined({a, c}));
  EXPECT_FALSE(combined({}));
}

TEST(AdviseVpa, BucketsGrowByFivePercentFromTenMillionBytes) {
  EXPECT_EQ(vpa::bucket_of(0), 0u);
  EXPECT_EQ(vpa::bucket_of(9.99e6), 0u);
  EXPECT_EQ(vpa::bucket_of(1e7), 1u);
  EXPECT_DOUBLE_EQ(vpa::bucket_start(1), 1e7);
  EXPECT_NEAR(vpa::bucket_start(2) - vpa::bucket_start(1), 1.05e7, 1);
  for (double x : {2e8, 209715200.0, 3.3e9, 5e11}) {
    size_t b = vpa::bucket_of(x);
    EXPECT_LE(vpa::bucket_start(b), x);
    EXPECT_LT(x, vpa::bucket_start(b + 1));
  }
}

TEST(AdviseVpa, TheTargetIsTheP90BucketsEndPlusFifteenPercentAndAtLeast250MiB) {
  std::vector<uint64_t> one = {300 * kMiB};
  auto r = vpa::recommend(one);
  size_t b = vpa::bucket_of(300.0 * kMiB);
  EXPECT_EQ(r.p90_bytes, static_cast<uint64_t>(vpa::bucket_start(b + 1)));
  EXPECT_EQ(r.target_bytes, static_cast<uint64_t>(static_cast<double>(r.p90_bytes) * 1.15));
  EXPECT_FALSE(r.at_minimum);
  // Ten peaks: the ninth decides the 90th percentile, not the largest.
  std::vector<uint64_t> ten;
  for (int i = 1; i <= 10; ++i) ten.push_back(uint64_t(i) * 100 * kMiB);
  EXPECT_EQ(vpa::recommend(ten).p90_bytes, static_cast<uint64_t>(vpa::bucket_start(vpa::bucket_of(900.0 * kMiB) + 1)));
  std::vector<uint64_t> small = {50 * kMiB};
  auto floor = vpa::recommend(small);
  EXPECT_TRUE(floor.at_minimum);
  EXPECT_EQ(floor.target_bytes, 250 * kMiB);
}

TEST(AdviseRecommend, MemoryMaxIsTheWorkingSetPlusHeadroomAndHighTheLowestWithinTheCrawl) {
  Advice a = advice(FakeRun{});
  EXPECT_EQ(a.memory_max_bytes, 250 * kMiB);
  EXPECT_EQ(a.slack_bytes, 50 * kMiB);
  ASSERT_TRUE(a.memory_high_bytes) << a.memory_high_reason;
  const uint64_t high = *a.memory_high_bytes;
  EXPECT_EQ(high % 4096, 0u);
  EXPECT_GE(high, 220 * kMiB);
  EXPECT_LT(high, a.memory_max_bytes);
  // The model's own climb: within 60 s from the chosen value, past it a page lower.
  double climb = model::grow(per_page(high), high, a.memory_max_bytes).seconds;
  EXPECT_LE(climb, 60);
  EXPECT_DOUBLE_EQ(*a.climb_per_page_s, climb);
  if (high > 220 * kMiB) {
    EXPECT_GT(model::grow(per_page(high - 4096), high - 4096, a.memory_max_bytes).seconds, 60);
  }
  EXPECT_LT(*a.climb_per_batch_s, *a.climb_per_page_s);
  // A longer crawl allowed: memory.high comes down to the margin.
  Advice slow = advice(FakeRun{}, {.crawl_s = 3600});
  EXPECT_EQ(slow.memory_high_bytes, 220 * kMiB);
}

TEST(AdviseRecommend, PredictsFitsAtTheWorkingSetAndNoKillUpToMemoryMax) {
  Advice a = advice(FakeRun{});
  ASSERT_EQ(a.predictions.size(), 3u);
  EXPECT_EQ(a.predictions[0].label, "working set");
  EXPECT_EQ(a.predictions[0].verdict.kind, model::VerdictKind::fits);
  EXPECT_EQ(a.predictions[2].working_set, 250 * kMiB);
  EXPECT_EQ(a.predictions[2].verdict.kind, model::VerdictKind::throttled);
  EXPECT_NE(a.predictions[2].verdict.summary.find("not killed: it is within memory.max 250MiB"), std::string::npos)
      << a.predictions[2].verdict.summary;
  ASSERT_TRUE(a.leak);
  EXPECT_EQ(a.leak->basis, "alloc_rate") << "a steady program: a runaway at its allocation rate";
  EXPECT_DOUBLE_EQ(a.leak->growth_bytes_per_s, 256 * 1024 / 1e-4);
  EXPECT_NE(a.regime.find("6.12 (1 stock slot)"), std::string::npos) << a.regime;
  EXPECT_EQ(a.vpa.peaks, 1u);
  EXPECT_EQ(a.vpa_slack_bytes, static_cast<int64_t>(a.vpa.target_bytes) - static_cast<int64_t>(200 * kMiB));
}

TEST(AdviseRecommend, ALeakIsKilledAfterItsOwnGrowthPlusTheClimbsSleeps) {
  Advice a = advice(FakeRun{.growing = true});
  ASSERT_TRUE(a.leak);
  EXPECT_EQ(a.leak->basis, "growth");
  ASSERT_TRUE(a.memory_high_bytes);
  const double g = a.leak->growth_bytes_per_s;
  const double own = static_cast<double>(a.memory_max_bytes - a.working_set_bytes) / g;
  EXPECT_NEAR(a.leak->seconds_to_kill_per_page, own + *a.climb_per_page_s, 1e-6);
  EXPECT_NEAR(a.leak->seconds_to_kill_per_batch, own + *a.climb_per_batch_s, 1e-6);
  EXPECT_NEAR(*a.leak->seconds_to_high, static_cast<double>(*a.memory_high_bytes - a.working_set_bytes) / g, 1e-6);
  ASSERT_FALSE(a.notes.empty());
  EXPECT_NE(a.notes[0].find("still grew at the end"), std::string::npos) << a.notes[0];
}

TEST(AdviseRecommend, PageCacheBeyondAQuarterOfTheWorkingSetIsSaidAndCanBeCounted) {
  FakeRun cached{.working_set = 20 * kMiB, .inactive_file = 30 * kMiB};
  Advice a = advice(cached);
  EXPECT_EQ(a.working_set_bytes, 20 * kMiB);
  EXPECT_EQ(a.page_cache_outside_bytes, 30 * kMiB);
  bool said = false;
  for (const std::string& n : a.notes) said = said || n.find("--page-cache sets the limits") != std::string::npos;
  EXPECT_TRUE(said);
  EXPECT_TRUE(advice(FakeRun{}).notes.size() < a.notes.size()) << "15% of page cache is not worth the note";
  cgmem::testing::TempDir tmp;
  auto run = report::read_run(cached.write(tmp.dir() / "cached-r1"));
  ASSERT_TRUE(run);
  auto all = usage_of(*run, WorkingSet::memory_current);
  ASSERT_TRUE(all);
  EXPECT_EQ(all->working_set, 50 * kMiB);
}

TEST(AdviseRecommend, NoMemoryHighWhenItWouldNotSleepBeforeMemoryMax) {
  // 2% headroom: memory.high 1% over the working set first sleeps about
  // 1.3% over memory.high at HZ=1000 (2.3% over the working set), beyond
  // memory.max.
  Advice a = advice(FakeRun{}, {.headroom = 0.02, .high_margin = 0.01});
  EXPECT_FALSE(a.memory_high_bytes);
  EXPECT_NE(a.memory_high_reason.find("not below memory.max"), std::string::npos) << a.memory_high_reason;
  EXPECT_EQ(a.predictions[0].verdict.kind, model::VerdictKind::fits);
}

TEST(AdviseRecommend, TheKernelVersionDecidesTheStockRule) {
  Advice a = advice(FakeRun{.kernel = "6.16.3"});
  EXPECT_EQ(a.rules.stock_slots, 7u);
  EXPECT_NE(a.regime.find("7 stock slots"), std::string::npos) << a.regime;
}

TEST(AdviseVerify, TheRunIsMadeAgainTheWayItWasUnderTheAdvicesLimits) {
  report::Run run;
  run.meta.name = "app";
  run.meta.cap_s = 8;
  run.meta.interval_ms = 100;
  run.meta.cpu = 0;
  run.meta.sampler_cpu = 1;
  run.meta.neighbour_ms = 10;
  run.meta.neighbours = 3;
  run.meta.workload_args = {"--target", "24M", "--churn", "300"};
  Advice a{.memory_max_bytes = 32 * kMiB, .memory_high_bytes = 30 * kMiB};
  EXPECT_EQ(rerun_args(run, a, "out", "app-verify"),
            (std::vector<std::string>{"run", "--name", "app-verify", "--out", "out", "--quiet", "--max", "33554432",
                                      "--high", "31457280", "--cap", "8s", "--interval", "100ms", "--cpu", "0",
                                      "--sampler-cpu", "1", "--neighbour", "10ms", "--neighbours", "3", "--",
                                      "--target", "24M", "--churn", "300"}));
  // A --command run: its program and its load, as cgmem run takes them.
  run.meta.command = true;
  run.meta.neighbour_ms.reset();
  run.meta.command_argv = {"redis-server", "--save", ""};
  run.meta.load_argv = {"sh", "-c", "redis-benchmark -q"};
  run.meta.ready_tcp = 6390;
  a.memory_high_bytes.reset();
  EXPECT_EQ(rerun_args(run, a, "out", "app-verify"),
            (std::vector<std::string>{"run", "--name", "app-verify", "--out", "out", "--quiet", "--max", "33554432",
                                      "--cap", "8s", "--interval", "100ms", "--cpu", "0", "--sampler-cpu", "1",
                                      "--command", "--ready-tcp", "6390", "--", "redis-server", "--save", "",
                                      "--load", "--", "sh", "-c", "redis-benchmark -q"}));
  // A leak gets the time to meet memory.max: twice (its run's length + the per-page bound) + 5 s.
  run.meta.command = false;
  run.outcome = report::OutcomeRecord{.status = "exited", .duration_s = 1};
  a.leak = Leak{.basis = "growth", .seconds_to_kill_per_page = 20};
  auto ended = rerun_args(run, a, "out", "x");
  EXPECT_EQ(*(std::find(ended.begin(), ended.end(), "--cap") + 1), "8s")
      << "a run that ended by itself grows no further: its own cap";
  run.outcome->status = "cap";
  run.meta.target_bytes = 16 * kMiB;
  auto fits = rerun_args(run, a, "out", "x");
  EXPECT_EQ(*(std::find(fits.begin(), fits.end(), "--cap") + 1), "8s")
      << "the workload's own --target fits under memory.max: it stops there";
  run.meta.target_bytes = 64 * kMiB;
  auto leak = rerun_args(run, a, "out", "app-verify");
  EXPECT_EQ(*(std::find(leak.begin(), leak.end(), "--cap") + 1), "47s");
}

}  // namespace
}  // namespace cgmem::advise
