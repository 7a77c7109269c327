// Names from run directories are data, never gnuplot commands: a run's name
// in meta.json and batch.json's config and workload labels reach the
// scripts quoted (report/gnuplot_script.h), checked here through the real
// gnuplot.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "report/gnuplot_script.h"
#include "support/fixture.h"
#include "support/run_cgmem.h"
#include "support/temp_dir.h"

namespace cgmem::report {
namespace {

namespace fs = std::filesystem;
using cgmem::testing::run_cgmem;
using cgmem::testing::slurp;
const std::string kBasic = std::string(CGMEM_FIXTURES) + "/runs/basic";

// How many files of `dir` are named PREFIX*.EXT.
size_t count(const fs::path& dir, const std::string& prefix, const std::string& ext) {
  size_t n = 0;
  for (const auto& e : fs::directory_iterator(dir))
    n += e.path().filename().string().starts_with(prefix) && e.path().extension() == ext;
  return n;
}

// Every file under `dir` whose name starts with "PWNED".
std::vector<std::string> pwned(const fs::path& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.path().filename().string().starts_with("PWNED")) out.push_back(e.path().string());
  return out;
}

TEST(GnuplotQuote, QuotesBecomeApostrophesAndControlBytesQuestionMarks) {
  EXPECT_EQ(gnuplot_quote("anon"), "'anon'");
  EXPECT_EQ(gnuplot_quote("it's"), "'it\u2019s'");
  EXPECT_EQ(gnuplot_quote("''x''"), "'\u2019\u2019x\u2019\u2019'");
  EXPECT_EQ(gnuplot_quote("x\n! touch PWNED\r\n#"), "'x?! touch PWNED??#'");
  EXPECT_EQ(gnuplot_quote(std::string("a\0b\x7f\\", 5)), "'a?b?\\'");
  EXPECT_EQ(gnuplot_quote("`id` @x \"y\" ; # \xc3\xa9"), "'`id` @x \"y\" ; # \xc3\xa9'");
}

TEST(GnuplotQuote, APlotLineIsOneLineWhateverTheTitles) {
  std::string plot = plot_command({{"a\nb", "m.dat", "lines"}, {"c'd", "n.dat", "lines"}});
  EXPECT_EQ(plot, "plot 'm.dat' using 1:2 with lines title 'a?b', 'n.dat' using 1:2 with lines title 'c\u2019d'\n");
  EXPECT_EQ(figure_script("w\n!x", "set grid\n", plot).find("\n!x"), std::string::npos);
}

class HostileNames : public ::testing::Test {
 protected:
  // A copy of one run of the basic batch whose meta.json name is `name` (a JSON string's content).
  fs::path run_named(const std::string& json_name, const fs::path& parent) {
    fs::path run = parent / "anon-over-max-r1";
    fs::create_directories(parent);
    fs::copy(kBasic + "/anon-over-max-r1", run, fs::copy_options::recursive);
    std::string meta = slurp(run / "meta.json");
    const std::string from = "\"name\": \"anon-over-max-r1\"";
    meta.replace(meta.find(from), from.size(), "\"name\": \"" + json_name + "\"");
    std::ofstream(run / "meta.json") << meta;
    return run;
  }
  void expect_plots_and_no_command(const fs::path& out) {
    EXPECT_TRUE(pwned(tmp_).empty()) << ::testing::PrintToString(pwned(tmp_));
    EXPECT_EQ(count(out / "plots", "memory-", ".png"), 1u);
    EXPECT_EQ(count(out / "plots", "memory-", ".svg"), 1u);
    EXPECT_EQ(count(out / "plots", "latency-", ".png"), 1u);
    EXPECT_EQ(slurp(out / "plots" / "gnuplot.log"), "");
  }
  cgmem::testing::TempDir temp_;
  fs::path tmp_ = temp_.dir();
};

TEST_F(HostileNames, ARunNameWithNewlinesRunsNoShellCommand) {
  std::string abs = (tmp_ / "PWNED3").string();
  fs::path run = run_named("x\\n! touch PWNED\\nsystem(\\\"touch PWNED2\\\")\\n! touch " + abs + "\\n#", tmp_ / "b");
  auto r = run_cgmem("report " + run.string() + " --out " + (tmp_ / "rep").string());
  EXPECT_EQ(r.code, 0) << r.text;
  expect_plots_and_no_command(tmp_ / "rep");
}

TEST_F(HostileNames, QuotesBackticksAndATrailingBackslashStayText) {
  fs::path run = run_named("it''s `touch PWNED` @GPVAL_PWD \\\\", tmp_ / "b");
  auto r = run_cgmem("report " + run.string() + " --out " + (tmp_ / "rep").string());
  EXPECT_EQ(r.code, 0) << r.text;
  expect_plots_and_no_command(tmp_ / "rep");
}

// batch.json's labels are a figure's title (workload) and a line's (config).
TEST_F(HostileNames, BatchLabelsWithNewlinesRunNoShellCommand) {
  run_named("r", tmp_ / "b");
  std::ofstream(tmp_ / "b" / "batch.json")
      << R"({"runs": [{"dir": "anon-over-max-r1", "config": "max\n! touch PWNED\n#",)"
      << R"( "workload": "anon\nsystem(\"touch PWNED2\")\n#", "rep": 1}]})";
  auto r = run_cgmem("report " + (tmp_ / "b").string() + " --out " + (tmp_ / "rep").string());
  EXPECT_EQ(r.code, 0) << r.text;
  EXPECT_TRUE(pwned(tmp_).empty()) << ::testing::PrintToString(pwned(tmp_));
  EXPECT_EQ(count(tmp_ / "rep" / "plots", "memory-anon_system__touch_PWNED2____", ".png"), 1u);
  EXPECT_EQ(count(tmp_ / "rep" / "plots", "latency-anon_system__touch_PWNED2____", ".png"), 1u);
  EXPECT_EQ(slurp(tmp_ / "rep" / "plots" / "gnuplot.log"), "");
}

// noenhanced: '_', '^' and '@' are drawn as they are, not as sub- and superscripts.
TEST_F(HostileNames, TitlesAreDrawnLiterally) {
  fs::path run = run_named("a_b^c@d{e}", tmp_ / "b");
  auto r = run_cgmem("report " + run.string() + " --out " + (tmp_ / "rep").string());
  ASSERT_EQ(r.code, 0) << r.text;
  EXPECT_NE(slurp(tmp_ / "rep" / "plots" / "memory-a_b_c_d_e_.svg").find(">a_b^c@d{e}<"), std::string::npos);
}

}  // namespace
}  // namespace cgmem::report
