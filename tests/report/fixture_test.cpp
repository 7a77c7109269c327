// The report on tests/fixtures/runs/basic, whose right answers are worked
// out by hand in tests/report/README.md.
#include <gtest/gtest.h>

#include <filesystem>

#include "report/predict.h"
#include "report/read_run.h"
#include "report/summary.h"
#include "report/summary_view.h"

namespace cgmem::report {
namespace {

const std::string kBasic = std::string(CGMEM_FIXTURES) + "/runs/basic";

Run load(const std::string& name) {
  auto run = read_run(kBasic + "/" + name);
  EXPECT_TRUE(run.has_value()) << (run ? "" : run.error().message());
  return run ? *run : Run{};
}

TEST(ReportReadRun, ReadsMetaOutcomeOpsAndSamples) {
  report::Run run = load("anon-over-max-r1");
  EXPECT_EQ(run.meta.name, "anon-over-max-r1");
  EXPECT_EQ(run.config, "max");
  EXPECT_EQ(run.workload, "anon-over");
  EXPECT_EQ(run.rep, 1);
  ASSERT_TRUE(run.meta.max.has_value());
  EXPECT_EQ(run.meta.max->bytes(), 268435456u);
  ASSERT_TRUE(run.meta.high.has_value());
  EXPECT_TRUE(run.meta.high->is_max());
  EXPECT_EQ(run.meta.hz, 1000);
  EXPECT_EQ(run.meta.git_commit, "abc123");
  ASSERT_TRUE(run.outcome.has_value());
  EXPECT_EQ(run.outcome->status, "oom_killed");
  EXPECT_EQ(run.ops.size(), 10u);
  EXPECT_EQ(run.samples.size(), 3u);
  EXPECT_EQ(run.samples_lines.truncated_last, 1u);
  EXPECT_EQ(run.samples.back().io_rbytes, 1052672u);
}

TEST(ReportReadRun, AMissingOutcomeIsAnUnfinishedRun) {
  report::Run run = load("anon-over-high-r2");
  EXPECT_FALSE(run.outcome.has_value());
  EXPECT_EQ(run.ops.size(), 3u);
  EXPECT_EQ(run.ops_lines.truncated_last, 1u);
  RunSummary s = summarize(run);
  EXPECT_FALSE(s.finished);
  EXPECT_EQ(s.status, "unfinished");
  EXPECT_EQ(s.truncated_lines, 1u);
}

TEST(ReportReadRun, MetaThatIsNotJsonIsAnError) {
  auto meta = parse_meta("{\"schema\":1,", "/x/meta.json");
  ASSERT_FALSE(meta.has_value());
  EXPECT_EQ(meta.error().message(),
            "read meta.json: not a JSON object: /x/meta.json (the run directory is damaged; rerun it or leave it out)");
}

TEST(ReportReadRun, WrongTypesAreLeftEmptyNotThrown) {
  auto meta = parse_meta(R"({"schema":"1","limits":{"max":null,"high":"max"},"host":{},"spec":[]})", "m");
  ASSERT_TRUE(meta.has_value());
  EXPECT_EQ(meta->schema, 0);
  EXPECT_FALSE(meta->max.has_value());
  EXPECT_TRUE(meta->high->is_max());
  EXPECT_EQ(meta->hz, 0);
}

// Values the report computes with are checked, with the key named.
TEST(ReportReadRun, ImpossibleValuesAreErrorsThatNameTheKey) {
  auto what = [](const std::string& text) {
    auto meta = parse_meta(text, "m");
    return meta ? std::string("accepted") : meta.error().what;
  };
  EXPECT_EQ(what(R"({"limits":{"max":-5}})"), "meta.json: limits.max is -5, not bytes, \"max\" or null");
  EXPECT_EQ(what(R"({"host":{"hz":"x"}})"), "meta.json: host.hz is \"x\", not a CONFIG_HZ (10 to 10000)");
  EXPECT_EQ(what(R"({"host":{"page_size":4097}})"),
            "meta.json: host.page_size is 4097, not a page size (a power of two, 4096 to 2097152)");
  EXPECT_EQ(what(R"({"workload":{"chunk_bytes":1000}})"), "meta.json: workload.chunk_bytes is 1000, not a whole number of pages");
  EXPECT_EQ(what(R"({"workload":{"procs":0}})"), "meta.json: workload.procs is 0, not 1 or more processes");
  EXPECT_EQ(what(R"({"spec":{"cap_s":-1}})"), "meta.json: spec.cap_s is -1, not a duration of 0 or more");
  EXPECT_EQ(what(R"({"host":{"page_size":16384,"hz":250},"workload":{"chunk_bytes":262144,"procs":4}})"), "accepted");
}

TEST(ReportFindRuns, ABatchDirectoryListsItsRunsInOrder) {
  auto runs = find_runs({kBasic});
  ASSERT_TRUE(runs.has_value());
  ASSERT_EQ(runs->size(), 4u);
  EXPECT_EQ(std::filesystem::path((*runs)[0]).filename(), "anon-over-both-r1");
  EXPECT_EQ(std::filesystem::path((*runs)[3]).filename(), "anon-over-max-r1");
}

TEST(ReportFindRuns, ADirectoryWithoutRunsIsAnError) {
  auto runs = find_runs({std::string(CGMEM_FIXTURES) + "/host-bare"});
  ASSERT_FALSE(runs.has_value());
  EXPECT_EQ(runs.error().message(),
            "read run directory: no meta.json here or in the directories below: " + std::string(CGMEM_FIXTURES) +
                "/host-bare (give a directory that `cgmem run` or `cgmem matrix` wrote)");
}

// `cgmem vm --out X -- run ...` writes X/runs/NAME-TIMESTAMP, so runs are
// looked for below the directories given.
TEST(ReportFindRuns, RunsAreFoundAtAnyDepth) {
  auto runs = find_runs({std::string(CGMEM_FIXTURES) + "/runs"});
  ASSERT_TRUE(runs.has_value()) << runs.error().message();
  ASSERT_EQ(runs->size(), 16u);  // basic's 4, claims' 6 and rfc's 6, two levels down
  EXPECT_EQ((*runs)[0], kBasic + "/anon-over-both-r1");
  EXPECT_EQ((*runs)[3], kBasic + "/anon-over-max-r1");
  EXPECT_EQ((*runs)[4], std::string(CGMEM_FIXTURES) + "/runs/claims/anon-clamp-none-r1");
}

TEST(ReportSummary, MaxOnlyRunIsKilledAtFullSpeed) {
  RunSummary s = summarize(load("anon-over-max-r1"));
  EXPECT_TRUE(s.killed);
  EXPECT_DOUBLE_EQ(*s.time_to_kill_s, 0.31);
  EXPECT_DOUBLE_EQ(*s.median_op_ms, 0.55);      // 0.1 .. 1.0 ms
  EXPECT_FALSE(s.median_churn_ms.has_value());  // it grows until the kill: no churn op
  EXPECT_DOUBLE_EQ(*s.p99_last10_ms, 1.0);      // the last op alone
  EXPECT_EQ(s.events_max, 35u);
  EXPECT_EQ(s.events_oom_kill, 1u);
  EXPECT_DOUBLE_EQ(*s.peak_bytes, 268435456.0 - 4096);  // the sampler's last reading
  EXPECT_DOUBLE_EQ(*s.cpu_s, 0.3);
}

TEST(ReportSummary, HighOnlyRunHasEveryColumn) {
  RunSummary s = summarize(load("anon-over-high-r1"));
  EXPECT_FALSE(s.killed);
  EXPECT_EQ(s.status, "cap");
  EXPECT_DOUBLE_EQ(*s.median_op_ms, 18.0);
  EXPECT_DOUBLE_EQ(*s.median_churn_ms, 18.0);  // every op of this run is a churn op
  EXPECT_NEAR(*s.p99_last10_ms, 0.3 + (2047.9 - 0.3) * 0.99, 1e-9);
  EXPECT_DOUBLE_EQ(*s.peak_bytes, 290742272.0);
  EXPECT_DOUBLE_EQ(*s.final_bytes, 270.0 * 1048576);  // the 40 s sample is the latest reading
  EXPECT_EQ(s.events_high, 3000u);
  EXPECT_DOUBLE_EQ(*s.psi_memory_some_s, 26.988775);
  EXPECT_DOUBLE_EQ(*s.psi_memory_full_s, 26.0);
  EXPECT_DOUBLE_EQ(*s.psi_io_some_s, 0.5);
  EXPECT_DOUBLE_EQ(*s.rbytes, 1052672.0);
  EXPECT_DOUBLE_EQ(*s.pgsteal, 0.0);
  EXPECT_DOUBLE_EQ(*s.cpu_s, 0.72);
  EXPECT_DOUBLE_EQ(*s.state_d_share, 0.8);
  EXPECT_EQ(s.top_wchan, "mem_cgroup_handle_over_high");
}

TEST(ReportSummary, GroupsByWorkloadThenConfigOrder) {
  std::vector<RunSummary> runs;
  for (auto name : {"anon-over-max-r1", "anon-over-both-r1", "anon-over-high-r1", "anon-over-high-r2"})
    runs.push_back(summarize(load(name)));
  auto groups = group(runs);
  ASSERT_EQ(groups.size(), 3u);
  EXPECT_EQ(groups[0].config, "max");
  EXPECT_EQ(groups[1].config, "high");
  EXPECT_EQ(groups[2].config, "both");
  EXPECT_EQ(groups[1].runs, 2);
  EXPECT_EQ(groups[1].finished, 1);
  EXPECT_DOUBLE_EQ(*groups[1].median_op_ms.lo, 0.5);
  EXPECT_DOUBLE_EQ(*groups[1].median_op_ms.hi, 18.0);
  EXPECT_EQ(outcome_text(groups[1]), "not killed in 150 s (1 of 2); unfinished (1 of 2)");
  EXPECT_EQ(outcome_text(groups[0]), "killed (1 of 1)");
}

TEST(ReportPredict, SleepsAndRatiosOfTheHighRun) {
  RunPrediction p = predict(load("anon-over-high-r1"));
  ASSERT_TRUE(p.sleeps.has_value());
  const auto& c = *p.sleeps;
  EXPECT_EQ(c.ops, 11u);
  EXPECT_EQ(c.ops_with_rise, 7u);
  EXPECT_EQ(c.skipped_not_multiple, 1u);
  EXPECT_EQ(c.skipped_one_over, 0u);  // the skipped rise is 20
  EXPECT_EQ(c.formula_no_sleep, 1u);
  EXPECT_EQ(c.compared, 5u);
  EXPECT_NEAR(*c.median_ratio, 2047.9 / 2000, 1e-9);  // ratios 1.0 1.1 1.5 0.9 1.024
  EXPECT_DOUBLE_EQ(*c.within_30, 0.8);
  // The ops of 64 sleeps (one per page) take, for each sleep beyond one per
  // batch, the formula at memory.current + 63 pages: 73 -> 78, 165 -> 172 ms.
  // Half a wheel step: 18+0.5, 78+4, 172+4, 662+32, 2000+32 ms; ratios
  // 0.973, 0.979, 1.406, 0.859, 1.008.
  EXPECT_NEAR(*c.median_ratio_wheel, 5139.2 / (64 * 82), 1e-9);
  EXPECT_NEAR(*c.median_ratio_wheel_level0, 18 / 18.5, 1e-9);
  EXPECT_NEAR(*c.median_ratio_wheel_upper, (2047.9 / 2032 + 5139.2 / (64 * 82)) / 2, 1e-9);
  EXPECT_DOUBLE_EQ(*c.median_sleeps_50ms, 33);  // 1, 2, 64, 64; the op in flight is under 50 ms
  // The run stopped at its cap inside an op: from the last op's end
  // (24.538 s) to the last sample (40 s), the high counter rose from 2281
  // to 3000, 719 = 42 x 17 + 5: 42 sleeps in 15.462 s, in the slow share.
  EXPECT_TRUE(c.in_flight);
  EXPECT_EQ(c.in_flight_sleeps, 42u);
  EXPECT_NEAR(*c.slow_phase_share, (5139.2 + 15840 + 15462) / (24237.0 + 15462), 1e-9);
  EXPECT_EQ(c.capped_ops, 1u);
  EXPECT_DOUBLE_EQ(*c.median_capped_sleep_ms, 2047.9);
  EXPECT_FALSE(p.sleeps_one_over.has_value());  // no rise of 17k + 1
}

TEST(ReportPredict, RisesOneOverAMultipleOf17AreCountedApart) {
  report::Run run = load("anon-over-high-r1");
  OpList ops;  // the run's ops with each rise one higher, as 6.12 gave in clamp runs
  for (Op op : run.ops) {
    if (op.high_after > op.high_before && (op.high_after - op.high_before) % 17 == 0) op.high_after += 1;
    ops.push_back(op);
  }
  run.ops = std::move(ops);
  RunPrediction p = predict(run);
  ASSERT_TRUE(p.sleeps.has_value());
  EXPECT_EQ(p.sleeps->skipped_not_multiple, 7u);
  EXPECT_EQ(p.sleeps->skipped_one_over, 6u);
  EXPECT_EQ(p.sleeps->compared, 0u);
  // Read as k sleeps, they give the first check's ops and ratios back.
  ASSERT_TRUE(p.sleeps_one_over.has_value());
  EXPECT_EQ(p.sleeps_one_over->skipped_not_multiple, 1u);  // the rise of 20
  EXPECT_EQ(p.sleeps_one_over->compared, 5u);
  EXPECT_NEAR(*p.sleeps_one_over->median_ratio, 2047.9 / 2000, 1e-9);
}

TEST(ReportPredict, BinsOfTheHighRun) {
  RunPrediction p = predict(load("anon-over-high-r1"));
  ASSERT_EQ(p.bins.size(), 6u);
  EXPECT_DOUBLE_EQ(p.bins[0].lo_ms, 11);
  EXPECT_DOUBLE_EQ(p.bins[5].hi_ms, 2000);
  EXPECT_EQ(p.bins[0].sleeps_per_batch, (std::vector<double>{1}));
  EXPECT_TRUE(p.bins[1].sleeps_per_batch.empty());
  EXPECT_EQ(p.bins[2].sleeps_per_batch, (std::vector<double>{64}));
  EXPECT_EQ(p.bins[3].sleeps_per_batch, (std::vector<double>{64}));
  EXPECT_EQ(p.bins[5].sleeps_per_batch, (std::vector<double>{2, 1}));
}

TEST(ReportPredict, BinsScaleWithHz) {
  auto bins = sleep_bins(250);
  EXPECT_DOUBLE_EQ(bins.front().lo_ms, 12);  // 3 jiffies: the shortest sleep at HZ=250
  EXPECT_DOUBLE_EQ(bins.back().hi_ms, 2000);
}

TEST(ReportPredict, PsiAgainstTimeOverNormal) {
  RunPrediction p = predict(load("anon-over-high-r1"));
  ASSERT_TRUE(p.psi.has_value());
  EXPECT_DOUBLE_EQ(p.psi->normal_ms, 0.25);
  // The logged ops' 24.53525 s over normal, and the op in flight at the cap
  // (15.462 s, less the 0.25 ms normal).
  EXPECT_NEAR(*p.psi->in_flight_s, 15.46175, 1e-9);
  EXPECT_NEAR(p.psi->excess_s, 24.53525 + 15.46175, 1e-9);
  EXPECT_NEAR(*p.psi->ratio, 26.988775 / 39.997, 1e-9);
}

TEST(ReportPredict, NoOpInFlightWhenTheWorkloadExited) {
  report::Run run = load("anon-over-high-r1");
  run.outcome->status = "exited";
  RunPrediction p = predict(run);
  EXPECT_FALSE(p.sleeps->in_flight);
  EXPECT_FALSE(p.psi->in_flight_s.has_value());
  EXPECT_NEAR(p.psi->excess_s, 24.53525, 1e-9);
}

TEST(ReportPredict, GrowthOverTheLastHalfOfAShortRun) {
  RunPrediction p = predict(load("anon-over-high-r1"));
  ASSERT_TRUE(p.growth.has_value());
  EXPECT_DOUBLE_EQ(p.growth->window_s, 20);
  EXPECT_DOUBLE_EQ(p.growth->measured_kib_s, 1024);  // 250 -> 270 MiB in 20 s
  // At 270 MiB the formula sleeps 1890 jiffies at HZ=1000.
  EXPECT_NEAR(*p.growth->model_page_kib_s, 4 / 1.890, 1e-9);
  EXPECT_NEAR(*p.growth->model_batch_kib_s, 256 / 1.890, 1e-9);
}

TEST(ReportPredict, TimeToTheKillFromWhereSleepingStarts) {
  RunPrediction p = predict(load("anon-over-both-r1"));
  ASSERT_TRUE(p.kill.has_value());
  EXPECT_DOUBLE_EQ(p.kill->sleep_start_s, 0.3);
  EXPECT_EQ(p.kill->sleep_start_bytes, 245686272u);
  EXPECT_DOUBLE_EQ(*p.kill->measured_s, 1747.7);
  // Summed independently (Python, one sleep per page from 59981 to 65536
  // pages): 1717.4 to 1718.2 s after the start, depending on the end page.
  EXPECT_NEAR(p.kill->predicted_page_s, 1717.8, 0.5);
  EXPECT_NEAR(p.kill->predicted_batch_s, 26.903, 0.05);
  // Killed inside an op that began at 0.318 s: 99982 events, 5881 sleeps,
  // nearly all the throttled time, so the regime seen is per page.
  EXPECT_EQ(p.sleeps->in_flight_sleeps, 5881u);
  EXPECT_EQ(p.kill->per_page, true);
  EXPECT_FALSE(p.kill->start_in_flight);
  // 86.78125 ops of 256 KiB to memory.max at the 0.25 ms normal op.
  EXPECT_NEAR(*p.kill->own_time_s, 86.78125 * 0.25 / 1000, 1e-12);
}

TEST(ReportPredict, SleepingStartsInTheOpInFlightWhenNoLoggedOpSlept) {
  report::Run run = load("anon-over-both-r1");
  OpList ops;
  ops.push_back(*run.ops.begin());  // only the quiet first op
  run.ops = std::move(ops);
  RunPrediction p = predict(run);
  ASSERT_TRUE(p.kill.has_value());
  EXPECT_TRUE(p.kill->start_in_flight);
  EXPECT_NEAR(p.kill->sleep_start_s, 0.00025, 1e-12);  // the first op's end
  EXPECT_EQ(p.kill->sleep_start_bytes, 200u * 1048576);
}

TEST(ReportPredict, AWorkloadThatSetsItsOwnHighIsPredictedWithIt) {
  report::Run run = load("anon-over-high-r1");
  run.meta.high.reset();
  run.meta.set_own_high = 241590272;
  RunPrediction p = predict(run);
  ASSERT_TRUE(p.sleeps.has_value());
  EXPECT_EQ(p.sleeps->compared, 5u);
  EXPECT_NEAR(*p.sleeps->median_ratio, 2047.9 / 2000, 1e-9);
}

TEST(ReportPredict, RunsWithoutMemoryHighAreSkipped) {
  RunPrediction p = predict(load("anon-over-max-r1"));
  EXPECT_EQ(p.skipped, "no memory.high");
  EXPECT_FALSE(p.sleeps.has_value());
}

}  // namespace
}  // namespace cgmem::report
