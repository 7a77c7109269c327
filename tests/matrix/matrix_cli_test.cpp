// `cgmem matrix` as a user sees it, for what needs no kernel.
#include <gtest/gtest.h>

#include "support/run_cgmem.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <vector>

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

namespace {

// The parts of quick.toml's plan, as `cgmem matrix --plan --json --shard` prints them.
std::vector<std::string> planned(const std::string& flags) {
  auto out = cgmem::testing::run_cgmem_split("matrix " + std::string(CGMEM_SOURCE_DIR) +
                                             "/examples/quick.toml --vm --plan --json --out /tmp/cgmem-shard-unused" + flags);
  auto plan = nlohmann::json::parse(out.out, nullptr, false);
  std::vector<std::string> names;
  if (!plan.is_object()) return names;
  for (const auto& r : plan["runs"]) names.push_back(r["name"]);
  return names;
}

TEST(MatrixCli, ThePlansShardsAreItsRunsEachOnce) {
  auto whole = planned("");
  ASSERT_GE(whole.size(), 3u);
  auto one = planned(" --shard 1/2"), two = planned(" --shard 2/2 --order shuffle --seed 9");
  EXPECT_EQ(one.size() + two.size(), whole.size());
  std::vector<std::string> both = one;
  both.insert(both.end(), two.begin(), two.end());
  std::sort(both.begin(), both.end());
  std::sort(whole.begin(), whole.end());
  EXPECT_EQ(both, whole);
  auto out = cgmem::testing::run_cgmem_split("matrix " + std::string(CGMEM_SOURCE_DIR) +
                                             "/examples/quick.toml --vm --plan --json --shard 2/2 --out /tmp/x");
  auto plan = nlohmann::json::parse(out.out, nullptr, false);
  EXPECT_EQ(plan["shard"], (nlohmann::json{{"index", 2}, {"count", 2}}));
}

TEST(MatrixCli, AShardOutOfRangeIsAUsageError) {
  auto out = run("matrix x.toml --shard 3/2");
  EXPECT_EQ(out.code, 2);
  EXPECT_EQ(out.text, "cgmem: error: --shard 3/2: give K/N, the K-th of N parts (1 <= K <= N <= 10000) "
                      "(e.g. --shard 1/4 ... --shard 4/4; in a Slurm array, --shard $SLURM_ARRAY_TASK_ID/N with "
                      "--array=1-N)\n");
}

}  // namespace
