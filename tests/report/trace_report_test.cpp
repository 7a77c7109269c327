// The trace section on traced run directories built here (trace_fixture.h):
// a run beside a neighbour, a 4-process run that lost events, a run alone on
// its CPU whose stock a limit write and other causes drained, lines that are
// not valid, and the claims row `procs` reading the per-process rows. Every
// figure asserted follows from the events written in the test.
#include "report/trace_report.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "report/claims.h"
#include "report/read_run.h"
#include "report/report.h"
#include "report/trace_view.h"
#include "support/fixture.h"
#include "support/temp_dir.h"
#include "trace_fixture.h"

namespace cgmem::report {
namespace {

namespace fs = std::filesystem;
namespace tr = testing::trace;
using tr::kMs;

// Beside a neighbour, under TCG: 5 sleeps of 100 ms with reclaim 2 ms,
// timer 4 ms (one -0.3 ms), wake-up 0.5 ms, rest 0.2 ms. Drains of the
// run's stock by the neighbour (twice before a sleep, once before a
// non-sleeping decision) and by cgmem's driver; the driver wakes twice in
// 0.3 ms. So: 3 extra sleeps (2 neighbour, 1 cgmem) and 2 of the batch.
tr::Run neighbour_run(const fs::path& batch) {
  tr::Run r(batch, "anon-over-nb-high-r1");
  r.meta["spec"]["neighbour_interval_ms"] = 100;
  r.meta["spec"]["neighbours"] = 1;
  r.meta["host"]["virtualized"] = "tcg";
  r.trace_facts["neighbour_cgroup_ids"] = {tr::kNeighbourCgroup};
  r.ops = {{311, 10}};
  auto& l = r.lines;
  tr::sleep(l, 1000 * kMs, 311, 100 * kMs, 4 * kMs, kMs / 2, kMs / 5);
  l.push_back(tr::waking(1050 * kMs, tr::kDriverPid));
  l.push_back(tr::switch_in(1050 * kMs + 300000, tr::kDriverPid));
  l.push_back(tr::drain(1200 * kMs, 400, "neighbour", "refill", tr::kNeighbourCgroup));
  l.push_back(tr::drain(1205 * kMs, 311, "cgmem", "refill", tr::kRunCgroup, tr::kNeighbourCgroup));  // another memcg's
  tr::sleep(l, 1300 * kMs, 311, 100 * kMs, 4 * kMs, kMs / 2, kMs / 5);
  l.push_back(tr::drain(1500 * kMs, 400, "neighbour", "refill", tr::kNeighbourCgroup));
  tr::sleep(l, 1600 * kMs, 311, 100 * kMs, -300000, kMs / 2, kMs / 5);
  l.push_back(tr::drain(1800 * kMs, tr::kDriverPid, "cgmem", "refill", 9));
  l.push_back(tr::waking(1850 * kMs, tr::kDriverPid));
  l.push_back(tr::switch_in(1850 * kMs + 300000, tr::kDriverPid));
  tr::sleep(l, 1900 * kMs, 311, 100 * kMs, 4 * kMs, kMs / 2, kMs / 5);
  l.push_back(tr::drain(2100 * kMs, 400, "neighbour", "refill", tr::kNeighbourCgroup));
  l.push_back(tr::penalty(2150 * kMs, 311, false));
  tr::sleep(l, 2200 * kMs, 311, 100 * kMs, 4 * kMs, kMs / 2, kMs / 5);
  return r;
}

// Four processes, 7 events lost: 501 sleeps 4 times, 502 twice, 503 once,
// 504 decides once without a sleep (so it has no throttled window and its
// ops do not count); one drain of the run's own stock (over_batch) before
// 501's and 502's second sleeps and 503's first.
tr::Run four_process_run(const fs::path& batch) {
  tr::Run r(batch, "anon-over-4p-high-r1");
  r.meta["workload"]["procs"] = 4;
  r.trace_facts["lost"] = 7;
  r.trace_facts["lost_by_cpu"] = {7, 0};
  r.ops = {{501, 8}, {502, 8}, {503, 4}, {504, 2}};
  auto& l = r.lines;
  auto one = [&](int64_t t_ms, int pid) { tr::sleep(l, t_ms * kMs, pid, 100 * kMs, 4 * kMs, kMs / 2, kMs / 5); };
  one(1000, 501);
  one(1200, 502);
  l.push_back(tr::drain(1400 * kMs, 503, "cgmem", "over_batch", tr::kRunCgroup));
  one(1500, 501);
  one(1700, 502);
  one(1900, 503);
  one(2100, 501);
  one(2300, 501);
  l.push_back(tr::penalty(2500 * kMs, 504, false));
  return r;
}

// Alone on its CPU: drains of every stock by memory.high and memory.max
// writes (2 sleeps), reclaim at memory.max in /parent, a caller not
// resolved; a kernel thread's refill, a hotplug, a shell's refill. Plus
// two lines that are not valid and one unknown event.
tr::Run alone_run(const fs::path& batch) {
  tr::Run r(batch, "anon-over-high-r1");
  r.trace_facts["cgroups"]["77"] = "/parent";
  r.ops = {{311, 4}};
  auto& l = r.lines;
  auto one = [&](int64_t t_ms) { tr::sleep(l, t_ms * kMs, 311, 100 * kMs, 4 * kMs, kMs / 2, kMs / 5); };
  auto all = [&](int64_t t_ms, int pid, const char* comm, const char* caller, uint64_t cgroup) {
    l.push_back(tr::drain_all(t_ms * kMs, pid, comm, caller, cgroup));
    l.push_back(tr::drain(t_ms * kMs + kMs, 30, "kworker/0:1", "drain_all", 0));
  };
  one(1000);
  all(1100, 600, "cgmem", "memory_high_write", tr::kRunCgroup);
  one(1200);
  all(1400, 700, "stress", "try_charge_memcg", 77);
  one(1500);
  l.push_back(tr::drain(1700 * kMs, 31, "kworker/u4:2", "refill", 88));
  one(1800);
  all(2000, 600, "cgmem", "0xffffffff81234567", tr::kRunCgroup);
  one(2100);
  l.push_back(tr::drain(2300 * kMs, 12, "kworker/1:1", "hotplug", 0));  // a kernel thread, but a hotplug
  one(2400);
  l.push_back(tr::drain(2600 * kMs, 900, "bash", "refill", 4300));
  one(2700);
  all(2900, 600, "cgmem", "memory_max_write", tr::kRunCgroup);
  one(3000);
  l.push_back("garbage");
  auto bad_cpu = nlohmann::json::parse(tr::waking(1, 2));
  bad_cpu["cpu"] = 9000;
  l.push_back(bad_cpu.dump());
  return r;
}

struct TraceReportTest : ::testing::Test {
  testing::TempDir tmp;
  fs::path batch = tmp.dir() / "batch";

  TraceReport analyzed(const tr::Run& r) {
    r.write();
    auto run = read_run(r.dir.string());
    EXPECT_TRUE(run.has_value()) << (run ? "" : run.error().message());
    if (!run) return {};
    EXPECT_TRUE(is_traced(*run));
    return analyze_trace(*run);
  }
};

std::vector<std::string> rows_of(const Attribution& a) {
  std::vector<std::string> out;
  for (const auto& r : a.rows)
    out.push_back(
        fmt::format("{} | {} | {} | {} | {:.4f}", r.cause, r.cgroup.value_or("-"), r.comm, r.sleeps, r.share));
  return out;
}

TEST_F(TraceReportTest, ANeighboursExtraSleepsGoToItsCgroup) {
  auto t = analyzed(neighbour_run(batch));
  ASSERT_TRUE(t.attribution);
  EXPECT_EQ(t.attribution->sleeps, 5u);
  EXPECT_EQ(t.attribution->extra_sleeps, 3u);
  EXPECT_EQ(t.attribution->batch_sleeps, 2u);
  EXPECT_EQ(rows_of(*t.attribution),
            (std::vector<std::string>{"neighbour | /claims-x-neighbour-1 | neighbour | 2 | 0.6667",
                                      "cgmem | id 9 | cgmem | 1 | 0.3333"}));
  EXPECT_FALSE(t.own_cpu);
  EXPECT_TRUE(t.emulated);
  EXPECT_TRUE(t.problems.empty()) << t.problems.front();
}

// The batch charge before a sleep came reclaim_ns before its penalty line:
// a drain during that reclaim emptied the stock of the pages after this
// sleep, so it makes the next sleep extra, not this one. Here the second
// sleep reclaims 10 ms and the neighbour drains 5 ms before its line; the
// third sleep follows that drain and cgmem's. By the previous penalty line
// instead, both would come out extra (the neighbour's and cgmem's).
TEST_F(TraceReportTest, ADrainDuringTheReclaimBeforeASleepCountsForTheNext) {
  tr::Run r(batch, "anon-over-nb-high-r1");
  r.trace_facts["neighbour_cgroup_ids"] = {tr::kNeighbourCgroup};
  r.ops = {{311, 3}};
  auto& l = r.lines;
  tr::sleep(l, 1000 * kMs, 311, 100 * kMs, 4 * kMs, kMs / 2, kMs / 5);
  l.push_back(tr::drain(1995 * kMs, 400, "neighbour", "refill", tr::kNeighbourCgroup));
  tr::sleep(l, 2000 * kMs, 311, 100 * kMs, 4 * kMs, kMs / 2, kMs / 5, 10 * kMs);
  l.push_back(tr::drain(2200 * kMs, tr::kDriverPid, "cgmem", "refill", 9));
  tr::sleep(l, 2300 * kMs, 311, 100 * kMs, 4 * kMs, kMs / 2, kMs / 5);
  auto t = analyzed(r);
  ASSERT_TRUE(t.attribution);
  EXPECT_EQ(t.attribution->sleeps, 3u);
  EXPECT_EQ(t.attribution->extra_sleeps, 1u);
  EXPECT_EQ(rows_of(*t.attribution), (std::vector<std::string>{"cgmem | id 9 | cgmem | 1 | 1.0000"}));
}

// Pages per sleep over the throttled window: the ops that returned before
// the task's first sleep (its growth to memory.high) are not counted.
TEST_F(TraceReportTest, PagesPerSleepCountOnlyTheOpsAfterTheFirstSleep) {
  tr::Run r(batch, "anon-over-high-r1");
  r.ops = {{311, 200}};  // every 10 ms from 0, 1 ms each: 100 return before the first sleep at 1000 ms
  r.ops_from_ns = 0;
  for (int i = 0; i < 4; ++i) tr::sleep(r.lines, (1000 + 200 * i) * kMs, 311, 100 * kMs, 4 * kMs, kMs / 2, kMs / 5);
  auto t = analyzed(r);
  ASSERT_EQ(t.per_process.size(), 1u);
  EXPECT_EQ(t.per_process[0].ops, 100u);
  EXPECT_EQ(t.per_process[0].pages, 100u * 64);
  EXPECT_DOUBLE_EQ(*t.per_process[0].pages_per_sleep, 100.0 * 64 / 4);
}

TEST_F(TraceReportTest, EachSleepSplitIntoItsParts) {
  auto t = analyzed(neighbour_run(batch));
  ASSERT_TRUE(t.split);
  const SleepSplit& s = *t.split;
  EXPECT_EQ(s.sleeps, 5u);
  EXPECT_DOUBLE_EQ(*s.penalty.median_ns, 100 * kMs);
  EXPECT_DOUBLE_EQ(*s.timer.median_ns, 4 * kMs);
  EXPECT_DOUBLE_EQ(*s.timer.mean_ns, 3.14 * kMs);  // (4 x 4 - 0.3) / 5
  EXPECT_DOUBLE_EQ(*s.timer.of_penalty, 15.7 / 500);
  EXPECT_DOUBLE_EQ(*s.wakeup.median_ns, 0.5 * kMs);
  EXPECT_DOUBLE_EQ(*s.rest.of_penalty, 1.0 / 500);
  EXPECT_DOUBLE_EQ(*s.reclaim.median_ns, 2 * kMs);
  EXPECT_DOUBLE_EQ(*s.median_ratio, 1.067);  // (2 + 100 + 4 + 0.7) / 100
  EXPECT_DOUBLE_EQ(*s.ratio_of_sums, 529.2 / 500);
  EXPECT_DOUBLE_EQ(*s.timer_share_of_extra, 15.7 / 29.2);
  EXPECT_EQ(s.driver_wakeups, 2u);
  EXPECT_DOUBLE_EQ(*s.driver_wakeup_median_ns, 300000);
  EXPECT_DOUBLE_EQ(*s.emulator_share_of_wakeup, 0.6);
  ASSERT_EQ(t.per_process.size(), 1u);
  EXPECT_DOUBLE_EQ(*t.per_process[0].pages_per_sleep, 128);  // 10 ops of 64 pages, 5 sleeps
  EXPECT_NEAR(t.per_process[0].asleep_s, 0.5192, 1e-12);
}

TEST_F(TraceReportTest, AFourProcessRunHasARowPerProcess) {
  auto t = analyzed(four_process_run(batch));
  ASSERT_EQ(t.per_process.size(), 4u);
  std::vector<std::string> rows;
  for (const auto& p : t.per_process)
    rows.push_back(fmt::format("{} {} {} {} {:.4f}", p.pid, p.sleeps, p.pages,
                               p.pages_per_sleep ? fmt::format("{:g}", *p.pages_per_sleep) : "-", p.asleep_s));
  EXPECT_EQ(rows, (std::vector<std::string>{"501 4 512 128 0.4188", "502 2 512 256 0.2094", "503 1 256 256 0.1047",
                                            "504 0 0 - 0.0000"}));
  ASSERT_TRUE(t.attribution);
  EXPECT_EQ(t.attribution->extra_sleeps, 3u);
  EXPECT_EQ(t.attribution->batch_sleeps, 4u);
  EXPECT_EQ(rows_of(*t.attribution), std::vector<std::string>{"own_process | /claims-x | cgmem | 3 | 1.0000"});
}

TEST_F(TraceReportTest, LostEventsAreSaidBesideEveryFigureAndTheRunStillReports) {
  auto t = analyzed(four_process_run(batch));
  EXPECT_EQ(t.lost, 7u);
  EXPECT_TRUE(t.lossy());
  auto sections = trace_sections({t});
  ASSERT_EQ(sections.size(), 3u);
  EXPECT_EQ(sections[0].paragraphs[1],
            "anon-over-4p-high-r1 (high): 7 events lost (by CPU: 7, 0): every figure of this run may miss some, and a "
            "lost drain makes an extra sleep look like a batch's own.");
  for (const auto& s : sections) {
    ASSERT_EQ(s.tables.size(), 1u) << s.title;
    EXPECT_EQ(s.tables[0].head.back(), "lost events");
    for (const auto& row : s.tables[0].rows) EXPECT_EQ(row.back(), "7") << s.title;
  }
  EXPECT_NE(sections[1].paragraphs.back().find(" 7 events lost."), std::string::npos);
  auto j = trace_json({t});
  EXPECT_EQ(j[0]["lost"], 7);
  EXPECT_EQ(j[0]["lost_by_cpu"], nlohmann::json({7, 0}));
  EXPECT_EQ(j[0]["per_process"].size(), 4u);
}

TEST_F(TraceReportTest, ADrainOfEveryStockGoesToWhatAskedForIt) {
  auto t = analyzed(alone_run(batch));
  ASSERT_TRUE(t.attribution);
  EXPECT_EQ(t.attribution->sleeps, 8u);
  EXPECT_EQ(t.attribution->extra_sleeps, 7u);
  EXPECT_EQ(rows_of(*t.attribution), (std::vector<std::string>{
                                         "limit_write | /claims-x | cgmem | 2 | 0.2857",
                                         "drain_all | /claims-x | cgmem | 1 | 0.1429",
                                         "hotplug | - | kworker/1:1 | 1 | 0.1429",
                                         "kernel_worker | id 88 | kworker/u4:2 | 1 | 0.1429",
                                         "other | id 4300 | bash | 1 | 0.1429",
                                         "reclaim | /parent | stress | 1 | 0.1429",
                                     }));
  EXPECT_TRUE(t.own_cpu);
  auto sections = trace_sections({t});
  EXPECT_EQ(sections[0].paragraphs.back(),
            "anon-over-high-r1 (high): 8 sleeps, 7 extra (88%), 1 the batch's own. 29% of the extra sleeps followed a "
            "write to memory.high or memory.max (/claims-x) draining every CPU's stock. The workload had its CPU to "
            "itself (no neighbour, the sampler on another CPU): this is what empties the precharge on a CPU of its "
            "own, the study's open question.");
}

TEST_F(TraceReportTest, LinesThatAreNotValidAreCountedAndSaid) {
  auto r = alone_run(batch);
  r.lines.push_back(R"({"t_ns":5,"cpu":0,"pid":1,"event":"mm_page_alloc"})");
  auto t = analyzed(r);
  EXPECT_EQ(t.bad_lines, 2u);
  EXPECT_EQ(t.unknown_events, 1u);
  EXPECT_EQ(t.attribution->sleeps, 8u);  // the valid lines still count
  auto sections = trace_sections({t});
  EXPECT_EQ(sections[0].paragraphs[1],
            "anon-over-high-r1 (high): 2 lines of trace.jsonl not valid, skipped; 1 line of events this cgmem does "
            "not know, skipped.");
}

TEST_F(TraceReportTest, AnUnfinishedRunStillGivesWhatNeedsNoTraceFacts) {
  auto r = four_process_run(batch);
  r.with_outcome = false;
  auto t = analyzed(r);
  EXPECT_FALSE(t.attribution);
  EXPECT_FALSE(t.lost);
  EXPECT_EQ(t.per_process.size(), 4u);
  EXPECT_EQ(t.problems, std::vector<std::string>{"the run did not finish: no outcome.json, so no trace facts (the "
                                                 "cgroup ids, the lost events)"});
  auto j = trace_json({t});
  EXPECT_TRUE(j[0]["attribution"].is_null());
  EXPECT_TRUE(j[0]["lost"].is_null());
}

TEST_F(TraceReportTest, ATracedRunWithoutItsTraceSaysSo) {
  auto r = alone_run(batch);
  r.write();
  fs::remove(r.dir / "trace.jsonl");
  auto run = read_run(r.dir.string());
  ASSERT_TRUE(run);
  EXPECT_TRUE(is_traced(*run));
  auto t = analyze_trace(*run);
  EXPECT_EQ(t.problems, std::vector<std::string>{"traced, but the run directory has no trace.jsonl"});
  EXPECT_FALSE(t.attribution);
}

// The whole report: the section in claims.md, predict.md and report.html,
// and report.json's `trace` with the names users' scripts read.
TEST_F(TraceReportTest, TheReportWritesTheSectionAndItsKeys) {
  neighbour_run(batch).write();
  four_process_run(batch).write();
  alone_run(batch).write();
  auto w = make_report({.dirs = {batch.string()}, .out = (tmp.dir() / "report").string()});
  ASSERT_TRUE(w) << w.error().message();
  for (const char* file : {"claims.md", "predict.md", "report.html"}) {
    std::string text = testing::slurp((tmp.dir() / "report" / file).string());
    EXPECT_NE(text.find("Trace: what emptied the charge stock before each extra sleep"), std::string::npos) << file;
    EXPECT_NE(text.find("Trace: where a sleep's time goes"), std::string::npos) << file;
    EXPECT_NE(text.find("Trace: the throttle per process"), std::string::npos) << file;
  }
  auto j = nlohmann::json::parse(testing::slurp((tmp.dir() / "report" / "report.json").string()));
  ASSERT_EQ(j["trace"].size(), 3u);
  const auto& nb = j["trace"][2];  // the runs by name: 4p, high, nb
  EXPECT_EQ(nb["name"], "anon-over-nb-high-r1");
  EXPECT_EQ(nb["sleeps"], 5);
  EXPECT_EQ(nb["extra_sleeps"], 3);
  EXPECT_EQ(nb["batch_sleeps"], 2);
  EXPECT_EQ(nb["attribution"][0], nlohmann::json({{"cause", "neighbour"},
                                                  {"cgroup", "/claims-x-neighbour-1"},
                                                  {"comm", "neighbour"},
                                                  {"sleeps", 2},
                                                  {"share", 2.0 / 3}}));
  EXPECT_EQ(nb["per_process"][0]["pages_per_sleep"], 128.0);
  EXPECT_EQ(nb["split"]["timer_ns"]["median"], 4.0 * kMs);
  EXPECT_EQ(nb["split"]["study_ratio"], nlohmann::json({{"min", 1.06}, {"max", 1.10}}));
  EXPECT_EQ(nb["lost"], 0);
  for (const char* key :
       {"name", "dir", "attribution", "per_process", "split", "lost", "sleeps", "extra_sleeps", "batch_sleeps"})
    EXPECT_TRUE(nb.contains(key)) << key;
}

// A batch without a traced run has no trace section and an empty `trace`.
TEST(TraceReport, NoTracedRunNoSection) {
  testing::TempDir tmp;
  auto w = make_report(
      {.dirs = {std::string(CGMEM_FIXTURES) + "/runs/basic"}, .out = (tmp.dir() / "r").string(), .html = false});
  ASSERT_TRUE(w) << w.error().message();
  EXPECT_EQ(w->json["trace"], nlohmann::json::array());
  EXPECT_EQ(testing::slurp((tmp.dir() / "r" / "claims.md").string()).find("Trace:"), std::string::npos);
  EXPECT_TRUE(trace_sections({}).empty());
}

// The claims row `procs`: with traced runs its note gives each process's
// sleeps and pages per sleep against the single process's, instead of the
// guess about the shared stock; the verdict is still the speed-up's.
TEST(TraceReport, TheProcsClaimReadsThePerProcessRows) {
  auto run_of = [](const char* name, int procs) {
    report::Run r;
    r.meta.name = name;
    r.meta.procs = procs;
    r.meta.high = Limit::of(241590272);
    r.meta.target_bytes = 335544320;
    r.outcome = OutcomeRecord{.status = "cap"};
    return r;
  };
  std::vector<report::Run> runs = {run_of("4p", 4), run_of("1p", 1)};
  std::vector<RunSummary> sums = {{.name = "4p", .finished = true}, {.name = "1p", .finished = true}};
  std::vector<RunPrediction> preds(2);
  preds[0].growth = GrowthCheck{
      .procs = 4, .start_bytes = 250e6, .measured_kib_s = 40, .model_page_kib_s = 10, .pages_per_sleep = 4.7};
  preds[1].growth =
      GrowthCheck{.procs = 1, .start_bytes = 250e6, .measured_kib_s = 1, .model_page_kib_s = 1, .pages_per_sleep = 1};
  auto procs_note = [&](const RunTraces* traces) {
    for (const auto& c : check_claims(runs, sums, preds, nullptr, traces))
      if (c.id == "procs") return std::string(verdict_text(c.verdict)) + " | " + c.note;
    return std::string("no row");
  };
  const std::string test =
      "not reproduced | test: speed-up within 0.625 to 1.5 times the number of processes; each "
      "run's growth over the last window divided by the model at its own final usage, so "
      "different overages compare.";
  EXPECT_NE(procs_note(nullptr).find(test + " Pages per sleep explain it"), std::string::npos) << procs_note(nullptr);
  RunTraces traces(2);
  traces[0] = TraceReport{.name = "4p", .lost = 3};
  traces[0]->per_process = {{.pid = 501, .sleeps = 4, .pages_per_sleep = 2.5},
                            {.pid = 502, .sleeps = 2, .pages_per_sleep = 5},
                            {.pid = 503, .sleeps = 1, .pages_per_sleep = 5}};
  EXPECT_EQ(procs_note(&traces), test +
                                     " Traced, each process (the trace section's rows): 4p: sleeps 4, 2, 1; pages "
                                     "per sleep 2.50, 5.00, 5.00 (3 events lost). The single-process run was not "
                                     "traced, so there is no row to set them beside.");
  traces[1] = TraceReport{.name = "1p", .lost = 0};
  traces[1]->per_process = {{.pid = 311, .sleeps = 8, .pages_per_sleep = 1.25}};
  EXPECT_EQ(procs_note(&traces), test +
                                     " Traced, each process (the trace section's rows): 4p: sleeps 4, 2, 1; pages "
                                     "per sleep 2.50, 5.00, 5.00 (3 events lost). One process: 1p: sleeps 8; pages "
                                     "per sleep 1.25. Each of the processes wrote 2.00 to 4.00 times the single "
                                     "process's pages per sleep.");
}

}  // namespace
}  // namespace cgmem::report
