// `cgmem matrix` as a user sees it, for what needs no kernel.
#include <gtest/gtest.h>

#include "support/run_cgmem.h"

#include <filesystem>
#include <fstream>

namespace {

using cgmem::testing::Output;

Output run(const std::string& args) { return cgmem::testing::run_cgmem(args); }

TEST(MatrixCli, ResumeNeedsOut) {
  auto out = run("matrix " + std::string(CGMEM_SOURCE_DIR) + "/examples/quick.toml --resume");
  EXPECT_EQ(out.code, 2);
  EXPECT_EQ(out.text, "cgmem: error: --resume needs --out: the batch directory to finish\n");
}

TEST(MatrixCli, ABadSpecIsAUsageError) {
  std::string path = "/tmp/cgmem-matrix-cli-bad.toml";
  std::ofstream(path) << "[[configs]]\nname = \"a\"\nmax = \"lots\"\n[[workloads]]\nname = \"w\"\n";
  auto out = run("matrix " + path + " --native");
  EXPECT_EQ(out.code, 2);
  EXPECT_EQ(out.text, "cgmem: error: matrix spec: config a.max: 'lots' is not a valid value: " + path +
                          " (see docs/matrix.md for the format)\n");
  std::filesystem::remove(path);
}

TEST(MatrixCli, VmAndNativeExcludeEachOther) {
  auto out = run("matrix x.toml --vm --native");
  EXPECT_EQ(out.code, 2);
  EXPECT_EQ(out.text, "cgmem: error: --vm and --native exclude each other\n");
}

}  // namespace

namespace {

// A spec's own mistakes come before the host's state: on a host without a
// usable controller (this one, and CI's), --native still names them.
TEST(MatrixCli, ACapOfZeroIsNamedBeforeTheHost) {
  std::string path = "/tmp/cgmem-matrix-cli-cap0.toml";
  std::ofstream(path) << "[[configs]]\nname = \"a\"\nmax = \"64M\"\ncap = 0\n[[workloads]]\nname = \"w\"\n";
  auto out = cgmem::testing::run_cgmem("matrix " + path + " --native");
  EXPECT_EQ(out.code, 2);
  EXPECT_EQ(out.text, "cgmem: error: matrix spec: config a.cap: '0' is not a valid value: " + path +
                          " (see docs/matrix.md for the format)\n");
  std::filesystem::remove(path);
}

TEST(MatrixCli, AMissingClaimFileIsNamedBeforeTheHost) {
  std::string path = "/tmp/cgmem-matrix-cli-claim.toml";
  std::ofstream(path) << "claim = \"/nonexistent/claim.md\"\n[[configs]]\nname = \"a\"\nmax = \"64M\"\n"
                         "[[workloads]]\nname = \"w\"\n";
  auto out = cgmem::testing::run_cgmem("matrix " + path + " --native");
  EXPECT_EQ(out.code, 2);
  EXPECT_NE(out.text.find("/nonexistent/claim.md"), std::string::npos) << out.text;
  EXPECT_EQ(out.text.find("memory controller"), std::string::npos) << out.text;
  auto flag = cgmem::testing::run_cgmem("matrix " + path + " --native --claim /nonexistent/other.md");
  EXPECT_NE(flag.text.find("/nonexistent/other.md"), std::string::npos) << flag.text;
  std::filesystem::remove(path);
}

}  // namespace
