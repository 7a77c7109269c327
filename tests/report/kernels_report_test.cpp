// The report of a batch on two kernels ([[kernels]], docs/matrix.md),
// built from tests/fixtures/runs/claims: each kernel's runs in BATCH/LABEL
// with its own batch.json, as `cgmem matrix` lays them out. "debian-6.12"
// holds the fixture's runs as they are (one stock slot: the neighbour run
// sleeps once per page); "slots7" (stock_slots 7) holds the same runs, and
// its neighbour run is the fixture's run that slept once per batch
// (anon-over-both-r1) beside a neighbour, as 7 slots make it.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "report/claims_kernels.h"
#include "report/predict.h"
#include "report/report.h"
#include "report/summary.h"
#include "support/fixture.h"
#include "support/temp_dir.h"

namespace cgmem::report {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

const fs::path kClaims = fs::path(CGMEM_FIXTURES) / "runs/claims";

void write_json(const fs::path& p, const Json& j) { std::ofstream(p) << j.dump(2) << "\n"; }

// One kernel's batch: the fixture runs named, copied into BATCH/LABEL.
void kernel_batch(const fs::path& batch, const std::string& label, Json slots,
                  const std::vector<std::pair<std::string, std::string>>& runs) {
  fs::create_directories(batch / label);
  Json list = Json::array();
  for (const auto& [from, to] : runs) {
    fs::copy(kClaims / from, batch / label / to, fs::copy_options::recursive);
    list.push_back({{"dir", to}, {"config", "high"}, {"workload", to.substr(0, to.rfind("-high"))}, {"rep", 1},
                    {"kernel", label}, {"state", "finished"}});
  }
  write_json(batch / label / "batch.json",
             {{"schema", 1}, {"name", "k"}, {"kernel", {{"label", label}, {"name", label}, {"stock_slots", slots}}},
              {"runs", list}});
}

// Sets meta.json's spec.neighbour_interval_ms: the run had a neighbour.
void with_neighbour(const fs::path& run) {
  std::ifstream in(run / "meta.json");
  Json meta = Json::parse(in);
  meta["spec"]["neighbour_interval_ms"] = 100;
  write_json(run / "meta.json", meta);
}

class KernelsReport : public ::testing::Test {
 protected:
  void SetUp() override {
    kernel_batch(batch_, "debian-6.12", nullptr,
                 {{"anon-over-nb-high-r1", "anon-over-nb-high-r1"}, {"anon-over-max-r1", "anon-over-max-high-r1"}});
    kernel_batch(batch_, "slots7", 7,
                 {{"anon-over-both-r1", "anon-over-nb-high-r1"}, {"anon-over-max-r1", "anon-over-max-high-r1"}});
    with_neighbour(batch_ / "slots7/anon-over-nb-high-r1");
  }
  cgmem::testing::TempDir temp_;
  fs::path batch_ = temp_.dir() / "batch";
};

TEST_F(KernelsReport, EachRunCarriesItsKernelsLabel) {
  auto runs = read_runs({batch_.string()});
  ASSERT_TRUE(runs.has_value()) << runs.error().message();
  ASSERT_EQ(runs->size(), 4u);
  EXPECT_EQ((*runs)[0].kernel, "debian-6.12");
  EXPECT_EQ((*runs)[0].config, "high on debian-6.12");
  EXPECT_EQ((*runs)[3].kernel, "slots7");
  EXPECT_EQ((*runs)[3].stock_slots, 7);
  auto kernels = kernels_of(*runs);
  ASSERT_EQ(kernels.size(), 2u);
  EXPECT_EQ(kernels[0].stock_slots, 1);  // 6.12.57: one slot
  EXPECT_EQ(kernels[1].stock_slots, 7);
  EXPECT_EQ(stock_slots_of_release("6.16.1"), 7);
  EXPECT_EQ(stock_slots_of_release("6.12.57+deb12-cloud-amd64"), 1);
  EXPECT_EQ(stock_slots_of_release("7.0"), 7);
  EXPECT_EQ(stock_slots_of_release(""), 1);
}

// A batch of one kernel reads as before: no label, no column.
TEST_F(KernelsReport, ABatchOfOneKernelHasNoKernelColumn) {
  auto runs = read_runs({(batch_ / "slots7").string()});
  ASSERT_TRUE(runs.has_value());
  EXPECT_EQ((*runs)[0].kernel, "");
  EXPECT_EQ((*runs)[0].config, "high");
  EXPECT_TRUE(kernels_of(*runs).empty());
}

TEST_F(KernelsReport, ClaimsHaveAVerdictColumnPerKernelAndSayWhatDiffers) {
  auto w = make_report({.dirs = {batch_.string()}, .out = (temp_.dir() / "report").string(), .html = false});
  ASSERT_TRUE(w.has_value()) << w.error().message();
  auto file = [&](const char* name) { return cgmem::testing::slurp((temp_.dir() / "report" / name).string()); };
  std::string claims = file("claims.md");
  EXPECT_NE(claims.find("checked on each kernel's runs alone: debian-6.12 (6.12.57+deb12-cloud-amd64, HZ=250, 1 "
                        "stock slot per CPU); slots7 (6.12.57+deb12-cloud-amd64, HZ=250, 7 stock slots per CPU)."),
            std::string::npos)
      << claims;
  EXPECT_NE(claims.find("| claim | the study | debian-6.12 | slots7 |\n"), std::string::npos) << claims;
  EXPECT_NE(claims.find("| with a neighbour allocating on its CPU, a task sleeps once per 4 KiB page | median 64 sleeps "
                        "per op (formula 50 ms or more); 100% of the throttled time in ops with 32 or more | reproduced "
                        "| not reproduced |\n"),
            std::string::npos)
      << claims;
  EXPECT_NE(claims.find("| memory.high alone never kills; it throttles | not killed in 150 s (3 of 3); 4.8% to 5.1% over "
                        "memory.high at the cap; state D in 98% to 99% of samples (mem_cgroup_handle_over_high) | "
                        "reproduced | not tested by this batch |\n"),
            std::string::npos)
      << claims;
  // Only the claim both kernels tested with two verdicts is a difference.
  EXPECT_NE(claims.find(
                "## What differs by kernel\n\nwith a neighbour allocating on its CPU, a task sleeps once per 4 KiB page "
                "(sleeps-neighbour): reproduced on debian-6.12, not reproduced on slots7. On debian-6.12 the per-CPU "
                "charge stock holds one memcg (mm/memcontrol.c: refill_stock() calls drain_stock() when the CPU's "
                "cached memcg is another one): one neighbour charging on the same CPU drains the workload's stock, so "
                "the throttled task sleeps once per 4 KiB page. On slots7 it holds 7 (6.16's \"memcg: multi-memcg "
                "percpu charge cache\", or cgmem's patched 6.12 at memcontrol.stock_slots=7): a neighbour takes a "
                "slot of its own and the workload's stays, one sleep per 64-page batch; 8 cgroups charging on the CPU "
                "fill the slots and each new one drains another's (drain_stock() on one slot: at random in 6.16, in "
                "turn since mainline c0cafe24d3f6 and in cgmem's patch), so the sleeps come once per page again."
                "\n\n## On kernel debian-6.12\n"),
            std::string::npos)
      << claims;
  EXPECT_NE(claims.find("## On kernel slots7\n\nEach claim of the study \"memory.high vs memory.max, measured\", its "
                        "figure there and in this batch: 3 reproduced, 1 not reproduced, 11 not tested by this batch."),
            std::string::npos)
      << claims;
  EXPECT_NE(claims.find("| median sleeps per op 1.00 (formula sleep 100 ms or more); 0% of the throttled time in ops "
                        "with 32 or more (1 run) | not reproduced |"),
            std::string::npos)
      << claims;
  // Every figure of summary.md and predict.md under its kernel's heading.
  std::string summary = file("summary.md");
  EXPECT_NE(summary.find("## Kernel debian-6.12: Workload anon-over-nb\n"), std::string::npos) << summary;
  EXPECT_NE(summary.find("## Kernel slots7: Workload anon-over-max\n"), std::string::npos) << summary;
  EXPECT_NE(summary.find("| high on slots7 | 1 | killed (1 of 1) |"), std::string::npos) << summary;
  EXPECT_EQ(summary.find("## Workload"), std::string::npos) << summary;
  std::string predict = file("predict.md");
  EXPECT_NE(predict.find("## Kernel debian-6.12: "), std::string::npos) << predict;
  EXPECT_NE(predict.find("## Kernel slots7: "), std::string::npos) << predict;
  EXPECT_NE(predict.find("| anon-over-both-r1 | high on slots7 |"), std::string::npos) << predict;
  // report.json: a claims row per claim and kernel, the differences, a kernel per run and group.
  auto json = Json::parse(file("report.json"));
  EXPECT_EQ(json["claims"].size(), 30u);
  EXPECT_EQ(json["claims"][4]["kernel"], "debian-6.12");
  EXPECT_EQ(json["claims"][19]["id"], "sleeps-neighbour");
  EXPECT_EQ(json["claims"][19]["kernel"], "slots7");
  EXPECT_EQ(json["claims"][19]["verdict"], "not reproduced");
  ASSERT_EQ(json["kernel_differences"].size(), 1u);
  EXPECT_EQ(json["kernel_differences"][0]["id"], "sleeps-neighbour");
  EXPECT_EQ(json["kernel_differences"][0]["verdicts"],
            (Json{{"debian-6.12", "reproduced"}, {"slots7", "not reproduced"}}));
  EXPECT_EQ(json["runs"][3]["kernel"], "slots7");
  EXPECT_EQ(json["groups"][0]["kernel"], "debian-6.12");
  EXPECT_EQ(json["predictions"][0]["kernel"], "debian-6.12");
}

// A claim the timer wheel decides names HZ; with one HZ, or for a claim no
// known rule decides, the text says so and names no stock.
TEST(KernelDifferences, KernelsAlikeInStockAndHzSaySo) {
  Claim yes{.id = "sleep-length", .claim = "c", .verdict = ClaimVerdict::reproduced};
  Claim no = yes;
  no.verdict = ClaimVerdict::not_reproduced;
  std::vector<KernelClaims> by = {{.kernel = {.label = "a", .hz = 250}, .claims = {yes}},
                                  {.kernel = {.label = "b", .hz = 1000}, .claims = {no}},
                                  {.kernel = {.label = "c", .hz = 250}, .claims = {Claim{.id = "sleep-length"}}}};
  auto d = kernel_differences(by);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].why,
            "a at HZ=250, b at HZ=1000: the timer wheel's steps in ms differ, so each sleep overshoots the formula by "
            "another step (sleep-length and cap judge each run at its own HZ).");
  const std::string none =
      "No rule cgmem knows of differs for this claim between these kernels (docs/kernel.md, \"Rules by kernel "
      "version\"); the figures in each kernel's table below tell the runs apart.";
  by[1].kernel.hz = 250;
  EXPECT_EQ(kernel_differences(by)[0].why, none);
  by[1].kernel.hz = 1000;
  for (auto& k : by) k.claims[0].id = "psi";  // HZ differs, but does not decide PSI
  EXPECT_EQ(kernel_differences(by)[0].why, none);
  by[1].claims[0].verdict = ClaimVerdict::reproduced;
  EXPECT_TRUE(kernel_differences(by).empty());
}

// One slot on both, and still two verdicts (Debian's 6.1 and 6.12 beside a
// neighbour): said to be outside the stock's rule.
TEST(KernelDifferences, OneSlotKernelsThatDisagreeAreNotExplainedByTheStock) {
  Claim yes{.id = "sleeps-neighbour", .claim = "c", .verdict = ClaimVerdict::reproduced};
  Claim no = yes;
  no.verdict = ClaimVerdict::not_reproduced;
  std::vector<KernelClaims> by = {{.kernel = {.label = "debian-6.1", .hz = 250}, .claims = {no}},
                                  {.kernel = {.label = "debian-6.12", .hz = 250}, .claims = {yes}}};
  auto d = kernel_differences(by);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].why,
            "With 1 stock slot on each, the kernels still differ (reproduced on debian-6.12; not reproduced on "
            "debian-6.1): not what the stock's rule predicts; the runs of each kernel's table below are the "
            "measurement (docs/kernel.md, \"Rules by kernel version\").");
}

}  // namespace
}  // namespace cgmem::report
