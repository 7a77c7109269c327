// The gnuplot pool against the real gnuplot (scripts/install-deps.sh).
#include "report/gnuplot.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

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

}  // namespace
}  // namespace cgmem::report
