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
