// The report's RFC section on tests/fixtures/runs/rfc, whose right answers
// follow from tests/fixtures/runs/make_rfc.py (tests/report/README.md).
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "report/read_run.h"
#include "report/report.h"
#include "report/rfc.h"
#include "support/temp_dir.h"

namespace cgmem::report {
namespace {

const std::string kRfc = std::string(CGMEM_FIXTURES) + "/runs/rfc";

RfcComparison load() {
  auto runs = read_runs({kRfc});
  EXPECT_TRUE(runs.has_value()) << (runs ? "" : runs.error().message());
  return runs ? compare_rfc(*runs) : RfcComparison{};
}

std::string slurp_file(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(ReportRfc, TheRfcTableIsKeptAsData) {
  EXPECT_EQ(std::size(kRfcTable), 16u);
  EXPECT_DOUBLE_EQ(*rfc_seconds(0), 120.521);
  EXPECT_DOUBLE_EQ(*rfc_seconds(8), 5.347);
  EXPECT_DOUBLE_EQ(*rfc_seconds(15), 0.655);
  EXPECT_FALSE(rfc_seconds(16).has_value());
}

TEST(ReportRfc, OneRowPerShiftFromTheRunsThatSetTheKnob) {
  RfcComparison c = load();
  ASSERT_EQ(c.rows.size(), 4u);  // the run without memory.high.throttle is left out
  EXPECT_EQ(c.rows[0].shift, 0u);
  EXPECT_EQ(c.rows[1].shift, 2u);
  EXPECT_EQ(c.rows[2].shift, 4u);
  EXPECT_EQ(c.rows[3].shift, 20u);
  EXPECT_EQ(c.rows[2].runs.size(), 2u);
  EXPECT_TRUE(c.rfc_setup);
  EXPECT_FALSE(c.mixed_kernels);
  EXPECT_DOUBLE_EQ(*c.rows[0].rfc_s, 120.521);
  EXPECT_FALSE(c.rows[3].rfc_s.has_value());
}

TEST(ReportRfc, SplitsTheTimeToTheKillIntoItsParts) {
  RfcComparison c = load();
  ASSERT_EQ(c.rows.size(), 4u);
  const RfcRun& zero = c.rows[0].runs[0];
  EXPECT_TRUE(zero.killed);
  EXPECT_NEAR(zero.duration_s, 100.4, 1e-9);
  EXPECT_NEAR(*zero.reached_high_s, 2.4, 1e-9);   // the end of op 40
  EXPECT_NEAR(*zero.reached_max_s, 80.4, 1e-9);   // the end of op 79
  EXPECT_NEAR(*zero.climb_s(), 78.0, 1e-9);
  EXPECT_NEAR(*zero.at_max_s(), 20.0, 1e-9);
  EXPECT_EQ(zero.events_high, 680u);
  EXPECT_DOUBLE_EQ(*zero.climb_sleeps_per_op, 1.0);  // ops 41 to 79, each a rise of 17
  const RfcRun& capped = c.rows[1].runs[0];
  EXPECT_FALSE(capped.killed);
  EXPECT_NEAR(capped.duration_s, 300.0, 1e-9);
  EXPECT_NEAR(*capped.reached_high_s, 14.4, 1e-9);
  EXPECT_FALSE(capped.reached_max_s.has_value());
  EXPECT_FALSE(capped.climb_s().has_value());
  EXPECT_FALSE(capped.at_max_s().has_value());
}

TEST(ReportRfc, TheModelIsTheClimbFromHighToMax) {
  RfcComparison c = load();
  ASSERT_EQ(c.rows.size(), 4u);
  // `cgmem model table --high 10M --max 20M` at HZ=1000: 70.6 s at shift 0, 41.5 s at shift 4.
  EXPECT_NEAR(*c.rows[0].model_batch_s, 70.6, 0.05);
  EXPECT_NEAR(*c.rows[2].model_batch_s, 41.5, 0.05);
  EXPECT_GT(*c.rows[0].model_page_s, 60 * *c.rows[0].model_batch_s);
  EXPECT_EQ(*c.rows[3].model_batch_s, 0.0);  // shifted under HZ/100: no sleep at all
  // The plot's line: every shift from 0 to the largest run's, the rows' values among them.
  ASSERT_EQ(c.model_curve.size(), 21u);
  EXPECT_DOUBLE_EQ(c.model_curve[4].seconds, *c.rows[2].model_batch_s);
  EXPECT_GT(c.model_curve[5].seconds, c.model_curve[6].seconds);
}

TEST(ReportRfc, TheSectionPutsMeasuredRfcAndModelSideBySide) {
  Section s = rfc_section(load());
  ASSERT_EQ(s.tables.size(), 1u);
  const Table& t = s.tables[0];
  EXPECT_EQ(t.head[5], "time to kill (s)");
  ASSERT_EQ(t.rows.size(), 4u);
  EXPECT_EQ(t.rows[0], (std::vector<std::string>{"0", "10.0 MiB", "20.0 MiB", "1", "1", "100", "121", "70.6",
                                                 "2.40", "78.0", "20.0", "1.10", "680"}));
  EXPECT_EQ(t.rows[1][5], "not killed in 300");
  EXPECT_EQ(t.rows[2][5], "25.4 to 27.4");
  EXPECT_EQ(t.rows[2][10], "5.00 to 7.00");
  EXPECT_EQ(t.rows[3][6], "-");
  EXPECT_EQ(t.rows[3][11], "-");  // no model sleep to divide by
  // Where they differ, with this batch's figures: the at-max share is 20% (shift 0) to 33% (shift 20).
  ASSERT_GE(s.paragraphs.size(), 3u);
  EXPECT_NE(s.paragraphs[1].find("20% to 33% of the time to the kill"), std::string::npos) << s.paragraphs[1];
  EXPECT_NE(s.paragraphs[2].find("From shift 20 on, the shifted penalty"), std::string::npos) << s.paragraphs[2];
  // Ops 41 to 79 of each climb rose by 17: one sleep each.
  EXPECT_NE(s.paragraphs[1].find("the ops of the climb slept 1.00 times each"), std::string::npos) << s.paragraphs[1];
}

TEST(ReportRfc, AThrottleShiftOutsideTheKernelsRangeIsAnError) {
  auto meta = parse_meta(R"({"schema":1,"limits":{"high":10485760,"high_throttle":33}})", "/x/meta.json");
  ASSERT_FALSE(meta.has_value());
  EXPECT_EQ(meta.error().message(),
            "meta.json: limits.high_throttle is 33, not a shift of 0 to 32 or null: /x/meta.json (the run directory "
            "is damaged: fix the value, rerun the run or leave it out)");
}

TEST(ReportRfc, TheReportHasTheSectionTheJsonAndThePlotData) {
  testing::TempDir tmp;
  Options o{.dirs = {kRfc}, .out = tmp.path() + "/report", .html = false};
  auto w = make_report(o);
  ASSERT_TRUE(w.has_value()) << w.error().message();
  std::string predict = slurp_file(tmp.dir() / "report/predict.md");
  EXPECT_NE(predict.find("## 6. The RFC's memory.high.throttle: time to the OOM kill per shift"), std::string::npos);
  const auto& rows = w->json.at("rfc").at("rows");
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[2].at("runs").size(), 2u);
  EXPECT_DOUBLE_EQ(rows[0].at("runs")[0].at("climb_s").get<double>(), 78.0);
  EXPECT_TRUE(rows[1].at("runs")[0].at("climb_s").is_null());
  // Killed runs as points (the capped one is not), the RFC's 16 rows, the model where it sleeps.
  EXPECT_EQ(slurp_file(tmp.dir() / "report/plots/rfc-measured.dat"), "0 100.4\n4 25.4\n4 27.4\n20 1.2\n");
  EXPECT_EQ(slurp_file(tmp.dir() / "report/plots/rfc-table.dat").substr(0, 11), "0 120.521\n1");
  std::string model = slurp_file(tmp.dir() / "report/plots/rfc-model.dat");
  EXPECT_EQ(model.find("20 "), std::string::npos) << model;
  EXPECT_EQ(model.substr(0, 2), "0 ");
}

TEST(ReportRfc, ABatchOnTwoKernelsNamesTheKernelOfEachConfig) {
  testing::TempDir tmp;
  std::string batch = tmp.path() + "/batch";
  std::filesystem::create_directories(batch);
  tmp.copy_fixture("runs/rfc/alloc-forever-shift4-r1", "batch/a-shift4-r1");
  std::string other = tmp.copy_fixture("runs/rfc/alloc-forever-shift4-r2", "batch/b-shift4-r1");
  std::string meta = slurp_file(other + "/meta.json");
  for (auto [from, to] : {std::pair<std::string, std::string>{"6.12.117-cgmem-hz1000-throttle", "6.12.117+deb12-cloud-amd64"},
                          {"\"hz\": 1000", "\"hz\": 250"}}) {
    auto at = meta.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    meta.replace(at, from.size(), to);
  }
  std::ofstream(other + "/meta.json") << meta;
  auto runs = read_runs({batch});
  ASSERT_TRUE(runs.has_value()) << runs.error().message();
  ASSERT_EQ(runs->size(), 2u);
  EXPECT_EQ((*runs)[0].config, "both on HZ=1000 (6.12.117-cgmem-hz1000-throttle)");
  EXPECT_EQ((*runs)[1].config, "both on HZ=250 (6.12.117+deb12-cloud-amd64)");
  RfcComparison c = compare_rfc(*runs);
  EXPECT_TRUE(c.mixed_kernels);
  Section s = rfc_section(c);
  EXPECT_EQ(s.tables[0].head.back(), "kernel (HZ)");
  EXPECT_EQ(s.tables[0].rows[0].back(),
            "6.12.117+deb12-cloud-amd64 (250), 6.12.117-cgmem-hz1000-throttle (1000)");
}

}  // namespace
}  // namespace cgmem::report
