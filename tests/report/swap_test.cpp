// The report's reading of swap and the rows swap brings, on run
// directories the test writes (tests/report/swap_runs.h has their design).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "report/claims.h"
#include "report/claims_kernels.h"
#include "report/op_scan.h"
#include "report/predict.h"
#include "report/read_run.h"
#include "report/report.h"
#include "report/summary.h"
#include "report/swap_rules.h"
#include "report/swap_setting.h"
#include "support/fixture.h"
#include "support/temp_dir.h"
#include "swap_runs.h"

namespace cgmem::report {
namespace {

namespace fs = std::filesystem;
using namespace swap_runs;

std::vector<Claim> claims_of(const std::vector<Run>& runs) {
  std::vector<RunSummary> sums;
  std::vector<RunPrediction> preds;
  for (const auto& r : runs) {
    sums.push_back(summarize(r));
    preds.push_back(predict(r));
  }
  return check_claims(runs, sums, preds);
}

std::string row(const std::vector<Claim>& claims, const std::string& id) {
  auto it = std::find_if(claims.begin(), claims.end(), [&](const Claim& c) { return c.id == id; });
  if (it == claims.end()) return "no row " + id;
  return it->batch + " | " + verdict_text(it->verdict) + " | " + it->note;
}

class SwapRuns : public ::testing::Test {
 protected:
  // The six runs, each in DIR/NAME.
  void write_all(const fs::path& dir) {
    high_run(true).write(dir / "a-high-disk");
    high_run(false).write(dir / "b-high-none");
    max_run(true, true).write(dir / "c-max-disk");
    max_run(false, true).write(dir / "d-max-none");
    max_run(true, false).write(dir / "e-max-disk");
    swap_high_run().write(dir / "f-swaphigh-disk");
  }
  report::Run read(const fs::path& dir) {
    auto run = read_run(dir.string());
    EXPECT_TRUE(run.has_value()) << (run ? "" : run.error().message());
    return run ? std::move(*run) : report::Run{};
  }
  cgmem::testing::TempDir temp_;
  fs::path dir_ = temp_.dir();
};

TEST_F(SwapRuns, MetaSamplesAndOpsCarryTheSwapFacts) {
  high_run(true).write(dir_ / "a");
  swap_high_run().write(dir_ / "f");
  max_run(false, true).write(dir_ / "d");
  report::Run a = read(dir_ / "a"), f = read(dir_ / "f"), d = read(dir_ / "d");
  EXPECT_EQ(a.meta.swap.setting, "disk");
  EXPECT_EQ(a.meta.swap.kind, "disk");
  EXPECT_EQ(a.meta.swap.total_bytes, 512 * kMiB);
  EXPECT_EQ(a.meta.swap.swappiness, 60);
  EXPECT_FALSE(a.meta.swap.zswap.has_value());
  EXPECT_EQ(f.meta.swap_high, Limit::of(kSwapHigh));
  EXPECT_FALSE(a.meta.swap_high.has_value());
  EXPECT_EQ(a.samples.back().swap_current, 10 * kMiB);
  EXPECT_EQ(a.samples.back().swap_events, (std::map<std::string, uint64_t>{{"fail", 0}, {"high", 0}, {"max", 0}}));
  EXPECT_FALSE(a.samples.back().zswap_current.has_value());
  EXPECT_TRUE(f.ops.has_swap());
  std::vector<OpSwap> seen;
  f.ops.for_each_swap([&](const Op&, const OpSwap& s) { seen.push_back(s); });
  ASSERT_EQ(seen.size(), 12u);
  EXPECT_EQ(seen[4].before, swap_high_op_swap(4));
  EXPECT_EQ(seen[4].high_rise(), 18u);
  // A run without swap counters keeps none and reads as before.
  EXPECT_FALSE(d.ops.has_swap());
  EXPECT_EQ(d.ops.size(), 20u);
  EXPECT_EQ(d.meta.swap.setting, "none");
  EXPECT_TRUE(without_swap(d.meta));
  EXPECT_FALSE(with_swap(d.meta));
}

TEST_F(SwapRuns, SwapSettingsAreSaidAsTheHostHadThem) {
  HostSwap s{.setting = "zswap", .total_bytes = 512 * kMiB,
             .zswap = ZswapSettings{.enabled = true, .compressor = "zstd", .zpool = "zsmalloc"}, .swappiness = 100};
  EXPECT_EQ(swap_text(s), "zswap (zstd, zsmalloc) on disk swap 512MiB, swappiness 100");
  s.setting = "none";
  EXPECT_EQ(swap_text(s), "no swap");
  s.setting.reset();
  EXPECT_EQ(swap_text(s), "");
  EXPECT_TRUE(swap_json(s).is_null());
  // A run recorded before the setting was: no swap only when it had none.
  Meta old;
  old.swap.total_bytes = 0;
  EXPECT_TRUE(without_swap(old));
  old.swap.total_bytes = 64 * kMiB;
  EXPECT_FALSE(without_swap(old));
  EXPECT_FALSE(with_swap(old));
}

// The swap counters read the same through the scanner's general path
// (keys in another order, spaces) as through the lab's exact shape; a swap
// counter that is not an integer makes the line bad.
TEST(SwapOpLines, BothPathsReadTheSwapCounters) {
  OpSwap want{.before = 4096, .after = 8192, .high_before = 17, .high_after = 34};
  std::string lab = op_line(3, "churn", 100, 7, 1, 2, 0, 17, want);
  Op fast, general;
  OpSwap fast_swap, general_swap;
  bool fast_has = false, general_has = false;
  ASSERT_TRUE(scan_lab_op_line(lab, fast, fast_swap, fast_has));
  EXPECT_TRUE(fast_has);
  std::string shuffled =
      "{\"swap_high_after\": 34, \"op\": 3, \"swap_before\": 4096, \"t_ns\": 100, \"lat_ns\": 7, \"swap_after\": 8192, "
      "\"current_before\": 1, \"current_after\": 2, \"high_after\": 17, \"swap_high_before\": 17, \"phase\": \"churn\"}";
  ASSERT_TRUE(scan_op_line(shuffled, general, general_swap, general_has));
  EXPECT_TRUE(general_has);
  for (const OpSwap& s : {fast_swap, general_swap}) {
    EXPECT_EQ(s.before, want.before);
    EXPECT_EQ(s.after, want.after);
    EXPECT_EQ(s.high_before, want.high_before);
    EXPECT_EQ(s.high_after, want.high_after);
  }
  EXPECT_EQ(fast.high_after, general.high_after);
  Op plain;
  OpSwap none;
  bool has = true;
  ASSERT_TRUE(scan_op_line(op_line(3, "churn", 100, 7, 1, 2, 0, 17), plain, none, has));
  EXPECT_FALSE(has);
  EXPECT_FALSE(scan_op_line("{\"op\":1,\"t_ns\":1,\"lat_ns\":1,\"swap_before\":\"4096\"}", plain));
  EXPECT_FALSE(scan_op_line("{\"op\":1,\"t_ns\":1,\"lat_ns\":1,\"swap_high_after\":-1}", plain));
}

// Ops without swap counters before the first with them get zeros; a list
// with none calls nothing.
TEST(SwapOpList, CountersStayBesideTheirOps) {
  OpList ops;
  ops.push_back(Op{.t_ns = 1});
  EXPECT_FALSE(ops.has_swap());
  int calls = 0;
  ops.for_each_swap([&](const Op&, const OpSwap&) { ++calls; });
  EXPECT_EQ(calls, 0);
  ops.push_back(Op{.t_ns = 2}, OpSwap{.before = 5});
  ops.push_back(Op{.t_ns = 3});
  ops.append({Op{.t_ns = 4}});
  ops.append({Op{.t_ns = 5}}, {OpSwap{.before = 6}});
  std::vector<std::pair<int64_t, uint64_t>> seen;
  ops.for_each_swap([&](const Op& op, const OpSwap& s) { seen.emplace_back(op.t_ns, s.before); });
  EXPECT_EQ(seen, (std::vector<std::pair<int64_t, uint64_t>>{{1, 0}, {2, 5}, {3, 0}, {4, 0}, {5, 6}}));
}

TEST_F(SwapRuns, TheRowsSwapBringsInOneBatch) {
  write_all(dir_);
  auto runs = read_runs({dir_.string()});
  ASSERT_TRUE(runs.has_value()) << runs.error().message();
  auto claims = claims_of(*runs);
  ASSERT_EQ(claims.size(), 20u);
  EXPECT_EQ(claims[15].id, "swap-high-holds");
  EXPECT_EQ(claims[19].id, "swap-throughput");
  // The formula first sleeps for a batch at +1.4% (HZ=250, 7372 pages).
  auto start = model::sleep_start({.kernel = kKernel, .high = kHigh});
  ASSERT_TRUE(start.has_value());
  std::string from = fmt::format("{:+.1f}%", (static_cast<double>(*start) - kHigh) / kHigh * 100);
  EXPECT_EQ(from, "+1.4%");
  EXPECT_EQ(row(claims, "swap-high-holds"),
            "memory.current at memory.high -0.3% (the median over each run's last half; the formula sleeps from "
            "+1.4%); swap.current up to 10.0 MiB; sleeps at most 1 (high events / 17), asleep in the throttle in 0% of "
            "samples (1 run); without swap at memory.high +9.0%, sleeps at most 100, asleep 86% (1 run) | reproduced "
            "| test: every run swapped out (memory.swap.current above 0) and its median memory.current over its last "
            "half stayed below the usage where the formula first sleeps for a batch. reclaim_high() reclaims with "
            "MEMCG_RECLAIM_MAY_SWAP and mem_cgroup_handle_over_high() retries while reclaim frees pages "
            "(mm/memcontrol.c, 6.12), so with swap a task over memory.high is reclaimed rather than put to sleep; the "
            "sleeps are at most the high events / 17, as a pass that freed pages raises the counter without a sleep.");
  EXPECT_EQ(row(claims, "swap-max-kill").substr(0, row(claims, "swap-max-kill").find(" | ")),
            "memory.swap.max 8.0 MiB against an excess of 16.0 MiB, killed 1 of 1 at 2.50 s, swap full at the "
            "kill in 1 of 1, swap.current up to 8.0 MiB, without swap killed at 0.4 s; memory.swap.max unset, host "
            "swap 512.0 MiB against an excess of 16.0 MiB, not killed in 20.0 s 1 of 1, swap.current up to 16.0 MiB, "
            "without swap killed at 0.4 s");
  EXPECT_NE(row(claims, "swap-max-kill").find(" | reproduced | test: a run whose excess"), std::string::npos);
  EXPECT_EQ(row(claims, "swap-high-model"),
            // Ops 6.25% to 75% over memory.swap.high, the 6th of the 11 compared 43.75%: clamped at 500
            // jiffies there, so each sleep ends 0.03 x (2000 + 16) ms late and takes 1.03 x 2016 / 2000 x the formula.
            "median ratio 1.04, 100% within 30%; with half a wheel step 1.03, each sleep ending 60.5 ms after it; "
            "swap.current 44% over memory.swap.high, the swap term 100% of the penalty, at the median (1 run) "
            "| reproduced | test: every run's median ratio with half a wheel step within 0.95 to 1.15, as "
            "sleep-length. Sleeps = the rise of memory.swap.events high over the op / 17: swap_find_max_overage() "
            "raises it once per pass while memory.swap.current is over memory.swap.high, and "
            "mem_cgroup_handle_over_high() sleeps after 17 passes that freed nothing (mm/memcontrol.c, 6.12). The "
            "formula: calculate_high_delay() of the memory overage plus that of the swap overage (memory.swap.current "
            "before the op against memory.swap.high), shifted by memory.high.throttle and clamped to 2 x HZ "
            "(predict.md, section 7). HZ=250: the timer wheel's steps are longer in ms than at HZ=1000, so the ratio "
            "with half a step is the comparison. 6.12's extra pass: 1 op rose by 17k + 1 and counts as k sleeps here.");
  EXPECT_EQ(row(claims, "swap-psi"),
            "PSI memory some 50% of the time in the sample intervals with a swap-in (5 intervals, 5.00 s), 5% in "
            "the others (1 run); without swap 90% of the run (1 run) | reproduced | test: PSI memory some rose in "
            "every run's swap-in intervals (from one sample to the next memory.swap.current fell or memory.stat "
            "workingset_refault_anon rose). swap_read_folio() (mm/page_io.c, 6.12) counts the swap-in of a refaulting "
            "page as a memory stall, and folio_wait_bit_common() (mm/filemap.c) the wait for its read.");
  EXPECT_EQ(row(claims, "swap-throughput").substr(0, row(claims, "swap-throughput").find(" | ")),
            "10.0 churn ops/s, 2.50 MiB/s; without swap 2.00 ops/s, 0.5 MiB/s; 5.00x (1 run)");
  EXPECT_NE(row(claims, "swap-throughput").find(" | reproduced | "), std::string::npos);
}

// Each row says "not reproduced" when its runs do not show what the
// kernel's rule says they should.
TEST_F(SwapRuns, EachRowFailsWhenTheRunsDoNot) {
  auto verdict_of = [&](const std::string& id, const std::vector<FakeRun>& runs) {
    cgmem::testing::TempDir dir;
    for (size_t i = 0; i < runs.size(); ++i) runs[i].write(dir.dir() / fmt::format("r{}", i));
    auto read = read_runs({dir.path()});
    EXPECT_TRUE(read.has_value());
    auto claims = claims_of(*read);
    auto it = std::find_if(claims.begin(), claims.end(), [&](const Claim& c) { return c.id == id; });
    return it == claims.end() ? std::string("no row") : std::string(verdict_text(it->verdict));
  };
  // Held 3% over memory.high: still throttled.
  EXPECT_EQ(verdict_of("swap-high-holds", {high_run(true, {.held = kHigh / 100 * 103}), high_run(false)}),
            "not reproduced");
  // Killed with swap left (memory.swap.max unset, 512 MiB of it).
  EXPECT_EQ(verdict_of("swap-max-kill", {max_run(true, false, true)}), "not reproduced");
  // memory.swap.max 0: killed with no swap counter risen, as the kernel does.
  EXPECT_EQ(verdict_of("swap-max-kill", {max_run_no_swap_room()}), "reproduced");
  // Not killed although the excess is twice memory.swap.max.
  EXPECT_EQ(verdict_of("swap-max-kill", {max_run(true, true, false)}), "not reproduced");
  // Sleeps 1.5 x the formula and half a step.
  EXPECT_EQ(verdict_of("swap-high-model", {swap_high_run(1.5)}), "not reproduced");
  EXPECT_EQ(verdict_of("swap-high-model", {swap_high_run(1.1)}), "reproduced");
  EXPECT_EQ(verdict_of("swap-psi", {high_run(true, {.swap_in_psi_us = 0})}), "not reproduced");
  // Churn ops of 1 s: slower than the 2 ops/s without swap.
  EXPECT_EQ(verdict_of("swap-throughput", {high_run(true, {.churn_lat_ns = kSecond}), high_run(false)}),
            "not reproduced");
  // No run without swap to set it beside: not tested, and said why.
  EXPECT_EQ(verdict_of("swap-throughput", {high_run(true)}), "not tested by this batch");
}

// Runs recorded with the setting "none" only: no row of swap's, no swap in
// any heading; the study's 15 rows.
TEST_F(SwapRuns, ABatchWithoutSwapHasNoSwapRows) {
  high_run(false).write(dir_ / "b");
  max_run(false, true).write(dir_ / "d");
  auto runs = read_runs({dir_.string()});
  ASSERT_TRUE(runs.has_value());
  EXPECT_EQ(claims_of(*runs).size(), 15u);
}

// A batch of two swap settings ([[kernels]] "noswap" and "disk"): a column
// each, headed by its swap; the rows swap brings not tested on noswap; a
// study row that swap's rule decides explained by it.
TEST_F(SwapRuns, ASettingPerColumnAndWhatSwapChanges) {
  fs::path batch = dir_ / "batch";
  auto setting = [&](const std::string& label, std::vector<std::pair<std::string, FakeRun>> runs) {
    Json list = Json::array();
    for (auto& [dir, run] : runs) {
      run.write(batch / label / dir);
      list.push_back({{"dir", dir}, {"config", run.meta["limits"].contains("high") ? "high" : "max"},
                      {"workload", dir.substr(0, dir.rfind("-r"))}, {"rep", 1}, {"kernel", label}});
    }
    cgmem::testing::spit((batch / label / "batch.json").string(),
                         Json{{"schema", 1}, {"kernel", {{"label", label}, {"name", "debian-6.12"}}}, {"runs", list}}.dump());
  };
  setting("noswap", {{"anon-over-r1", high_run(false)}, {"anon-over-max-r1", max_run(false, true)}});
  setting("disk", {{"anon-over-r1", high_run(true)},
                   {"anon-over-max-r1", max_run(true, true)},
                   {"anon-over-unset-r1", max_run(true, false)}});
  auto w = make_report({.dirs = {batch.string()}, .out = (dir_ / "report").string(), .html = false});
  ASSERT_TRUE(w.has_value()) << w.error().message();
  std::string claims = cgmem::testing::slurp((dir_ / "report/claims.md").string());
  // The settings in the order of their directories: disk, noswap.
  EXPECT_NE(claims.find("disk (6.12.57+deb12-cloud-amd64, HZ=250, 1 stock slot per CPU, disk swap 512MiB, swappiness "
                        "60); noswap (6.12.57+deb12-cloud-amd64, HZ=250, 1 stock slot per CPU, no swap)."),
            std::string::npos)
      << claims;
  EXPECT_NE(claims.find("| claim | the study | disk (disk swap 512MiB, swappiness 60) | noswap (no swap) |\n"),
            std::string::npos)
      << claims;
  EXPECT_NE(claims.find("## On kernel disk (disk swap 512MiB, swappiness 60)\n"), std::string::npos) << claims;
  EXPECT_NE(claims.find("| with swap, memory.high holds a cgroup near it by swapping out, instead of throttling it | "
                        "not tested: the study ran without swap (\"memory.high can hold a cgroup near the limit "
                        "instead of only slowing it ... We did not test that.\") | reproduced | not tested by this "
                        "batch |\n"),
            std::string::npos)
      << claims;
  // memory.high alone throttles without swap and is held with it.
  EXPECT_NE(claims.find("memory.high alone never kills; it throttles (high-throttles): not reproduced on disk, "
                        "reproduced on noswap. On disk reclaim can swap anonymous pages out: reclaim_high() reclaims "
                        "with MEMCG_RECLAIM_MAY_SWAP and mem_cgroup_handle_over_high() retries instead of sleeping "
                        "while reclaim frees pages (mm/memcontrol.c, 6.12), so a task over memory.high is reclaimed "
                        "rather than put to sleep and the throttle this claim rests on is smaller or gone; on noswap, "
                        "without swap, anonymous pages cannot be reclaimed and the task sleeps.\n"),
            std::string::npos)
      << claims;
  // memory.max kills at once without swap; with it, later or not at all.
  EXPECT_NE(claims.find("memory.max alone kills at full speed (max-kills): not reproduced on disk, reproduced on "
                        "noswap. On disk try_charge_memcg() reclaims to swap at memory.max"),
            std::string::npos)
      << claims;
  std::string summary = cgmem::testing::slurp((dir_ / "report/summary.md").string());
  EXPECT_NE(summary.find("## Kernel disk (disk swap 512MiB, swappiness 60): Workload anon-over\n"), std::string::npos)
      << summary;
  auto json = Json::parse(cgmem::testing::slurp((dir_ / "report/report.json").string()));
  ASSERT_EQ(json["kernels"].size(), 2u);
  EXPECT_EQ(json["kernels"][0]["label"], "disk");
  EXPECT_EQ(json["kernels"][0]["swap"],
            (Json{{"setting", "disk"}, {"kind", "disk"}, {"total_bytes", 512 * kMiB}, {"swappiness", 60},
                  {"zswap_settings", nullptr}}));
  EXPECT_EQ(json["kernels"][1]["swap"]["setting"], "none");
  EXPECT_EQ(json["claims"].size(), 40u);  // 20 rows on each setting
}

// Section 7 of predict.md and report.json's swap_high, from F.
TEST_F(SwapRuns, SwapHighAgainstTheFormulaInPredictMd) {
  swap_high_run().write(dir_ / "f");
  auto run = read_run((dir_ / "f").string());
  ASSERT_TRUE(run.has_value());
  auto p = predict(*run);
  ASSERT_TRUE(p.swap_high.has_value());
  const auto& c = p.swap_high->sleeps;
  EXPECT_EQ(c.ops_with_rise, 12u);
  EXPECT_EQ(c.skipped_not_multiple, 1u);  // the rise of 20
  EXPECT_EQ(c.skipped_one_over, 1u);      // the rise of 18, counted as one sleep
  EXPECT_EQ(c.compared, 11u);
  EXPECT_NEAR(*c.median_ratio_wheel, 1.03, 1e-6);
  // Op 0's formula: the memory term of 1.0% over memory.high (1 jiffy) and the swap term of 6.25% over (62).
  EXPECT_EQ(swap_high_jiffies(0), 63u);
  auto w = make_report({.dirs = {(dir_ / "f").string()}, .out = (dir_ / "report").string(), .html = false});
  ASSERT_TRUE(w.has_value());
  std::string predict_md = cgmem::testing::slurp((dir_ / "report/predict.md").string());
  EXPECT_NE(predict_md.find("## 7. memory.swap.high: each sleep against the formula\n"), std::string::npos);
  EXPECT_NE(predict_md.find("| anon-over-swaphigh-r1 | both | 250 | 4.0 MiB | 12 | 1 | 1 | 0 | 11 | 1.038 | 100% | "
                            "1.030 | 60.5 | 44% | 100% |"),
            std::string::npos)
      << predict_md;
  EXPECT_EQ(w->json["predictions"][0]["swap_high"]["sleeps"]["compared"], 11);
  EXPECT_EQ(w->json["predictions"][0]["swap_high"]["swap_high_bytes"], kSwapHigh);
}

// Verdicts swap's rules do not predict, and claims no rule decides, are
// said to be so.
TEST(SwapRules, WhatTheRulesDoNotExplainIsSaidSo) {
  KernelFacts none{.label = "noswap", .swap = {.setting = "none"}};
  KernelFacts disk{.label = "disk", .swap = {.setting = "disk"}};
  KernelFacts zram{.label = "zram", .swap = {.setting = "zram"}};
  EXPECT_EQ(swap_why("psi", {{&none, ClaimVerdict::reproduced}, {&disk, ClaimVerdict::not_reproduced}}),
            "No rule cgmem knows of says how swap moves this claim (reproduced on noswap; not reproduced on disk); "
            "the figures in each setting's table below tell the runs apart.");
  EXPECT_EQ(swap_why("swap-psi", {{&disk, ClaimVerdict::reproduced}, {&zram, ClaimVerdict::not_reproduced}}),
            "No rule cgmem knows of tells these kinds of swap apart for this claim (reproduced on disk; not reproduced "
            "on zram); the figures in each setting's table below tell the runs apart.");
  std::string reversed = swap_why("high-throttles", {{&none, ClaimVerdict::not_reproduced}, {&disk, ClaimVerdict::reproduced}});
  EXPECT_EQ(reversed.rfind("The verdicts (reproduced on disk; not reproduced on noswap) are not what swap's rule "
                           "predicts, which is the claim failing with swap and holding without it: On disk reclaim",
                           0),
            0u)
      << reversed;
  EXPECT_NE(reversed.find("The runs of each setting's table below are the measurement."), std::string::npos);
  // Two kinds of swap apart: the rule does not tell them apart.
  EXPECT_EQ(swap_why("max-kills", {{&disk, ClaimVerdict::reproduced}, {&zram, ClaimVerdict::not_reproduced}})
                .rfind("The verdicts (reproduced on disk; not reproduced on zram) are not what", 0),
            0u);
  // Settings on two releases: said to differ in more than swap.
  KernelFacts other = disk;
  other.release = "6.1.0-37-amd64";
  EXPECT_EQ(swap_why("max-kills", {{&none, ClaimVerdict::reproduced}, {&other, ClaimVerdict::not_reproduced}})
                .rfind("These kernels differ in more than swap (release, HZ or stock slots). On disk try_charge_memcg()", 0),
            0u);
  // Kernels without a recorded setting, or of one setting: nothing on swap.
  KernelFacts old{.label = "old"};
  EXPECT_EQ(swap_why("max-kills", {{&old, ClaimVerdict::reproduced}, {&disk, ClaimVerdict::not_reproduced}}), "");
  EXPECT_EQ(swap_why("both-kill-per-page", {{&none, ClaimVerdict::reproduced}, {&disk, ClaimVerdict::not_reproduced},
                                            {&zram, ClaimVerdict::not_reproduced}})
                .find("On disk, zram reclaim can swap"),
            0u);
}

}  // namespace
}  // namespace cgmem::report
