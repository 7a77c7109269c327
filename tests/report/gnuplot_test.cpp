// The gnuplot pool against the real gnuplot (scripts/install-deps.sh), and
// the report when there is none.
#include "report/gnuplot.h"
#include "report/report.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "support/temp_dir.h"

namespace cgmem::report {
namespace {

namespace fs = std::filesystem;

class ReportGnuplots : public ::testing::Test {
 protected:
  void SetUp() override { std::ofstream(dir_ / "line.gp") << "plot x\n"; }
  cgmem::testing::TempDir temp_;
  fs::path dir_ = temp_.dir();
};

TEST_F(ReportGnuplots, DrawsEachJobOnTheLeastBusyProcess) {
  Gnuplots g(dir_.string(), 2);
  ASSERT_TRUE(g.warning().empty()) << g.warning();
  for (const char* name : {"a", "b", "c"}) {
    g.draw(std::string("set terminal svg\nset output '") + name + ".svg'\nload 'line.gp'\nunset output\n", 1);
  }
  EXPECT_TRUE(g.finish()) << g.warning();
  for (const char* name : {"a.svg", "b.svg", "c.svg"}) EXPECT_GT(fs::file_size(dir_ / name), 1000u) << name;
  EXPECT_TRUE(fs::exists(dir_ / "gnuplot.log"));
}

TEST_F(ReportGnuplots, AFailingScriptFailsTheWholeAndSaysWhere) {
  Gnuplots g(dir_.string(), 2);
  g.draw("set terminal svg\nset output 'x.svg'\nplot 'no-such.dat'\nunset output\n", 1);
  EXPECT_FALSE(g.finish());
  EXPECT_NE(g.warning().find("gnuplot.log"), std::string::npos) << g.warning();
  EXPECT_FALSE(g.finish());  // finishing twice is harmless
}

TEST_F(ReportGnuplots, FinishingWithoutWorkEndsTheProcesses) {
  Gnuplots g(dir_.string(), 3);
  EXPECT_TRUE(g.finish());
}

// PATH holds only an empty directory for the life of this object.
class NoGnuplotOnPath {
 public:
  explicit NoGnuplotOnPath(const std::string& empty_dir) : old_(getenv("PATH") ? getenv("PATH") : "") {
    setenv("PATH", empty_dir.c_str(), 1);
  }
  ~NoGnuplotOnPath() { setenv("PATH", old_.c_str(), 1); }

 private:
  std::string old_;
};

TEST_F(ReportGnuplots, WithoutGnuplotItSaysHowToGetIt) {
  cgmem::testing::TempDir empty;
  NoGnuplotOnPath path(empty.path());
  Gnuplots g(dir_.string(), 2);
  EXPECT_NE(g.warning().find("gnuplot-nox"), std::string::npos) << g.warning();
  g.draw("plot x\n", 1);  // nowhere to go, and no crash
  EXPECT_FALSE(g.finish());
}

TEST_F(ReportGnuplots, AReportWithoutGnuplotIsWrittenWithoutFiguresAndSaysWhy) {
  cgmem::testing::TempDir empty;
  NoGnuplotOnPath path(empty.path());
  auto w = make_report({.dirs = {std::string(CGMEM_FIXTURES) + "/runs/basic"}, .out = (dir_ / "out").string()});
  ASSERT_TRUE(w.has_value()) << w.error().message();
  EXPECT_TRUE(w->json["plots"].empty());
  EXPECT_NE(w->json["notes"].dump().find("gnuplot not found"), std::string::npos) << w->json["notes"].dump();
  EXPECT_TRUE(fs::exists(dir_ / "out" / "report.html"));
}

}  // namespace
}  // namespace cgmem::report
