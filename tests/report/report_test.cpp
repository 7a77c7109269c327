// make_report and `cgmem report` end to end on the hand-made batch.
#include "report/report.h"

#include <gtest/gtest.h>

#include "support/run_cgmem.h"
#include "support/temp_dir.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace cgmem::report {
namespace {

namespace fs = std::filesystem;
const std::string kBasic = std::string(CGMEM_FIXTURES) + "/runs/basic";

class ReportFiles : public ::testing::Test {
 protected:
  std::string read(const fs::path& p) {
    std::ifstream in(p);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
  cgmem::testing::TempDir temp_;
  fs::path tmp_ = temp_.dir();
};

TEST_F(ReportFiles, WritesEveryFormat) {
  auto w = make_report({.dirs = {kBasic}, .out = tmp_.string()});
  ASSERT_TRUE(w.has_value()) << w.error().message();
  EXPECT_TRUE(fs::exists(tmp_ / "summary.md"));
  EXPECT_TRUE(fs::exists(tmp_ / "predict.md"));
  EXPECT_TRUE(fs::exists(tmp_ / "report.json"));
  EXPECT_TRUE(fs::exists(tmp_ / "report.html"));
  std::string summary = read(tmp_ / "summary.md");
  EXPECT_NE(summary.find("1 unfinished run (no outcome.json; read as far as written): anon-over-high-r2."),
            std::string::npos);
  EXPECT_NE(summary.find("Skipped 2 truncated last lines."), std::string::npos);
  EXPECT_NE(summary.find("HZ: 1000 (kernel 6.12.117, in a VM: tcg)."), std::string::npos) << summary;
  EXPECT_NE(summary.find("| max | 1 | killed (1 of 1) | 0.31 | 256.0 MiB | 256.0 MiB | 0.55 | 1.00 | 0 | 35 | 1 |"),
            std::string::npos);
  std::string predict = read(tmp_ / "predict.md");
  EXPECT_NE(predict.find("| anon-over-high-r1 | high | 1000 | 11 | 7 | 1 | 0 | 1 | 5 | 1.024 | 80% | 0.979 | 0.973 | 0.994 |"),
            std::string::npos);
  auto json = nlohmann::json::parse(read(tmp_ / "report.json"));
  EXPECT_EQ(json["runs"].size(), 4u);
  EXPECT_EQ(json["groups"][0]["workload"], "anon-over");
  EXPECT_EQ(json["groups"][0]["config"], "max");
  EXPECT_EQ(json["groups"][0]["outcome"], "killed (1 of 1)");
}

// claims.md, report.json's claims and report.html opening with them.
TEST_F(ReportFiles, TheClaimsTableIsWrittenAndOpensTheHtml) {
  auto w = make_report({.dirs = {kBasic}, .out = tmp_.string()});
  ASSERT_TRUE(w.has_value()) << w.error().message();
  std::string claims = read(tmp_ / "claims.md");
  EXPECT_EQ(claims.rfind("# Claims\n", 0), 0u) << claims;
  EXPECT_NE(claims.find("| claim | the study | this batch | verdict | note |\n|---|---|---|---|---|\n"), std::string::npos) << claims;
  EXPECT_NE(claims.find("| memory.max alone kills at full speed | killed 0.28 to 0.39 s after the start (3 of 3)"),
            std::string::npos);
  auto json = nlohmann::json::parse(read(tmp_ / "report.json"));
  ASSERT_EQ(json["claims"].size(), 15u);
  EXPECT_EQ(json["claims"][0]["id"], "max-kills");
  EXPECT_EQ(json["claims"][0]["verdict"], "reproduced");
  std::string html = read(tmp_ / "report.html");
  auto table = html.find("<h2>The study's claims, checked</h2>");
  ASSERT_NE(table, std::string::npos);
  EXPECT_LT(table, html.find("<h2>Plots</h2>"));
  EXPECT_LT(table, html.find("<h2>Summary</h2>"));
  EXPECT_NE(std::find(w->files.begin(), w->files.end(), (tmp_ / "claims.md").string()), w->files.end());
}

// Every image the HTML and the Markdown link to was drawn, and report.json
// lists the same figures.
TEST_F(ReportFiles, EveryFigureTheReportLinksWasDrawn) {
  auto w = make_report({.dirs = {kBasic}, .out = tmp_.string()});
  ASSERT_TRUE(w.has_value()) << w.error().message();
  ASSERT_FALSE(w->json["plots"].empty()) << w->json["notes"].dump();
  std::string html = read(tmp_ / "report.html"), summary = read(tmp_ / "summary.md");
  for (const auto& figure : w->json["plots"]) {
    std::string name = figure["name"];
    for (const char* ext : {".png", ".svg"}) {
      fs::path image = tmp_ / "plots" / (name + ext);
      ASSERT_TRUE(fs::exists(image)) << image;
      EXPECT_GT(fs::file_size(image), 1000u) << image;
    }
    EXPECT_NE(html.find("plots/" + name + ".svg"), std::string::npos) << name;
    EXPECT_NE(summary.find("(plots/" + name + ".png)"), std::string::npos) << name;
    EXPECT_TRUE(fs::exists(tmp_ / "plots" / (name + ".gp"))) << name;
  }
  // The basic batch has one workload: its latency, memory and sleeps figures.
  EXPECT_EQ(w->json["plots"].size(), 3u);
}

TEST_F(ReportFiles, JsonOnlyWritesNoPlots) {
  auto w = make_report({.dirs = {kBasic}, .out = tmp_.string(), .markdown = false, .html = false});
  ASSERT_TRUE(w.has_value());
  EXPECT_EQ(w->files, (std::vector<std::string>{(tmp_ / "report.json").string()}));
  EXPECT_FALSE(fs::exists(tmp_ / "plots"));
}

TEST_F(ReportFiles, RefusesMixedBuildsUnlessAllowed) {
  fs::path batch = tmp_ / "batch";
  fs::copy(kBasic, batch, fs::copy_options::recursive);
  fs::path meta = batch / "anon-over-max-r1" / "meta.json";
  std::string text = read(meta);
  text.replace(text.find("0123456789abcdef"), 16, "fedcba9876543210");
  std::ofstream(meta) << text;
  auto w = make_report({.dirs = {batch.string()}, .out = (tmp_ / "out").string()});
  ASSERT_FALSE(w.has_value());
  EXPECT_EQ(w.error().message(),
            "report: the runs come from 2 different builds (commit abc123 binary 0123456789abcdef; commit "
            "abc123 binary fedcba9876543210) (rerun them with one build, or pass --allow-mixed to compare them "
            "anyway)");
  auto allowed = make_report({.dirs = {batch.string()}, .out = (tmp_ / "out").string(), .allow_mixed = true});
  EXPECT_TRUE(allowed.has_value());
}

TEST_F(ReportFiles, BatchJsonLabelsOverrideNames) {
  fs::path batch = tmp_ / "batch";
  fs::create_directories(batch);
  fs::copy(kBasic + "/anon-over-max-r1", batch / "run-7", fs::copy_options::recursive);
  std::ofstream(batch / "batch.json")
      << R"({"runs":[{"dir":"run-7","config":"max-only","workload":"leak","rep":3}]})";
  auto runs = read_runs({batch.string()});
  ASSERT_TRUE(runs.has_value());
  ASSERT_EQ(runs->size(), 1u);
  EXPECT_EQ((*runs)[0].config, "max-only");
  EXPECT_EQ((*runs)[0].workload, "leak");
  EXPECT_EQ((*runs)[0].rep, 3);
}

using cgmem::testing::Output;

Output run(const std::string& args) { return cgmem::testing::run_cgmem(args); }

TEST_F(ReportFiles, CommandPrintsJson) {
  auto out = run("report " + kBasic + " --out " + tmp_.string() + " --format json --json");
  ASSERT_EQ(out.code, 0) << out.text;
  auto json = nlohmann::json::parse(out.text);
  EXPECT_EQ(json["out_dir"], tmp_.string());
  EXPECT_EQ(json["groups"].size(), 3u);
}

TEST_F(ReportFiles, CommandRejectsAnUnknownFormat) {
  auto out = run("report " + kBasic + " --format md,pdf");
  EXPECT_EQ(out.code, 2);
  EXPECT_EQ(out.text, "cgmem: error: --format: 'md,pdf' is not a list of md, json, html\n");
}

TEST_F(ReportFiles, CommandFailsOnAMissingDirectory) {
  auto out = run("report " + tmp_.string() + "/nope");
  EXPECT_EQ(out.code, 1);
  EXPECT_EQ(out.text, "cgmem: error: read run directory: no such directory: " + tmp_.string() +
                          "/nope (give a run or batch directory)\n");
}

}  // namespace
}  // namespace cgmem::report
