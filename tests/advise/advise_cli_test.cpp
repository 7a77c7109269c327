// `cgmem advise` as a user runs it: the JSON keys scripts read, the table,
// the errors, and a hostile run directory name.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "advise/fake_runs.h"
#include "support/run_cgmem.h"
#include "support/temp_dir.h"

namespace {

using cgmem::advise::testing::FakeRun;
using cgmem::advise::testing::kMiB;
using cgmem::testing::run_cgmem;
using cgmem::testing::run_cgmem_split;
using nlohmann::json;

class AdviseCli : public ::testing::Test {
 protected:
  std::string run(const FakeRun& f, const std::string& name = "steady-r1") { return f.write(tmp_.dir() / name); }
  cgmem::testing::TempDir tmp_;
};

TEST_F(AdviseCli, JsonHasTheLimitsTheirVerdictsTheVpaRuleAndEachManagersSettings) {
  std::string dir = run(FakeRun{});
  auto o = run_cgmem_split("advise --json '" + dir + "'");
  ASSERT_EQ(o.code, 0) << o.err;
  json j = json::parse(o.out, nullptr, false);
  ASSERT_TRUE(j.is_object()) << o.out;
  EXPECT_EQ(j["memory_max_bytes"], 250 * kMiB);
  EXPECT_TRUE(j["memory_high_bytes"].is_number());
  EXPECT_EQ(j["working_set_bytes"], 200 * kMiB);
  EXPECT_EQ(j["peak_current_bytes"], 230 * kMiB);
  EXPECT_EQ(j["slack_bytes"], 50 * kMiB);
  for (const char* key : {"memory_max_reason", "memory_high_reason", "climb_per_page_s", "climb_per_batch_s",
                          "leak", "kernel", "hz", "page_size", "rules", "regime", "notes", "inputs"})
    EXPECT_TRUE(j.contains(key)) << key;
  for (const char* key : {"p90_bytes", "target_bytes", "slack_bytes", "peaks", "at_minimum"})
    EXPECT_TRUE(j["vpa"].contains(key)) << key;
  ASSERT_EQ(j["predictions"].size(), 3u);
  EXPECT_EQ(j["predictions"][0]["verdict"]["verdict"], "fits");
  for (const char* m : {"systemd", "kubernetes", "docker", "podman", "compose", "nomad", "slurm"})
    EXPECT_TRUE(j["settings"].contains(m)) << m;
  EXPECT_EQ(j["settings"]["kubernetes"]["limits_memory"], 250 * kMiB);
  EXPECT_EQ(j["settings"]["kubernetes"]["requests_memory"], 200 * kMiB);
  EXPECT_TRUE(j["settings"]["kubernetes"]["memory_throttling_factor"].is_number());
  EXPECT_EQ(j["inputs"][0]["dir"], dir);
}

TEST_F(AdviseCli, TheTableSaysTheLimitsAndTheSettings) {
  auto o = run_cgmem("advise '" + run(FakeRun{}) + "'");
  ASSERT_EQ(o.code, 0) << o.text;
  EXPECT_NE(o.text.find("memory.max   250MiB"), std::string::npos) << o.text;
  EXPECT_NE(o.text.find("MemoryMax=262144000"), std::string::npos) << o.text;
  EXPECT_NE(o.text.find("the VPA rule on the same samples"), std::string::npos) << o.text;
}

TEST_F(AdviseCli, ABatchDirectoryGivesEveryRunInIt) {
  run(FakeRun{}, "batch/a-r1");
  run(FakeRun{.working_set = 300 * kMiB}, "batch/a-r2");
  auto o = run_cgmem_split("advise --json '" + tmp_.path() + "/batch'");
  ASSERT_EQ(o.code, 0) << o.err;
  json j = json::parse(o.out);
  EXPECT_EQ(j["inputs"].size(), 2u);
  EXPECT_EQ(j["working_set_bytes"], 300 * kMiB);
  EXPECT_EQ(j["vpa"]["peaks"], 2);
}

TEST_F(AdviseCli, ErrorsSayWhatIsWrong) {
  auto limited = run_cgmem("advise '" + run(FakeRun{.limits = {{"max", 100 * kMiB}}}, "limited-r1") + "'");
  EXPECT_EQ(limited.code, 1);
  EXPECT_NE(limited.text.find("cgmem: error: "), std::string::npos);
  EXPECT_NE(limited.text.find("the run had memory.max 100MiB"), std::string::npos) << limited.text;
  auto margins = run_cgmem("advise --headroom 10 --high-margin 10 '" + run(FakeRun{}) + "'");
  EXPECT_EQ(margins.code, 2);
  EXPECT_NE(margins.text.find("--high-margin 10% is not below --headroom 10%"), std::string::npos) << margins.text;
  auto crawl = run_cgmem("advise --crawl soon '" + run(FakeRun{}) + "'");
  EXPECT_EQ(crawl.code, 2);
  EXPECT_NE(crawl.text.find("--crawl"), std::string::npos) << crawl.text;
  auto both = run_cgmem("advise --cgroup " + tmp_.path() + " '" + run(FakeRun{}) + "'");
  EXPECT_EQ(both.code, 2);
  EXPECT_NE(both.text.find("give run directories, --cgroup PATH or --prometheus URL: one of the three"),
            std::string::npos)
      << both.text;
  auto lone = run_cgmem("advise --prometheus http://127.0.0.1:1");
  EXPECT_EQ(lone.code, 2);
  EXPECT_NE(lone.text.find("--prometheus and --selector go together"), std::string::npos) << lone.text;
  auto week = run_cgmem("advise --prometheus http://127.0.0.1:1 --selector '{cgroup=\"/a\"}' --range 9d");
  EXPECT_EQ(week.code, 2);  // a flag's value: a usage error, as every duration flag's
  EXPECT_NE(week.text.find("--range: invalid duration '9d': longer than 8 days"), std::string::npos) << week.text;
  auto live_verify = run_cgmem("advise --verify --cgroup " + tmp_.path());
  EXPECT_EQ(live_verify.code, 2);
  EXPECT_NE(live_verify.text.find("--verify and --probe run a recorded run again"), std::string::npos) << live_verify.text;
  // Nothing listens on port 1: the GET's error, not a hang.
  auto closed = run_cgmem("advise --prometheus http://127.0.0.1:1 --selector '{cgroup=\"/a\"}' --range 1h");
  EXPECT_EQ(closed.code, 1);
  EXPECT_NE(closed.text.find("cgmem: error: GET http://127.0.0.1:1: "), std::string::npos) << closed.text;
  auto missing = run_cgmem("advise " + tmp_.path() + "/nothing");
  EXPECT_EQ(missing.code, 1) << missing.text;
}

// A run directory's name goes to the terminal escaped and to JSON intact.
TEST_F(AdviseCli, AHostileDirectoryNameCannotDriveTheTerminal) {
  std::string dir = run(FakeRun{}, "x\x1b[2Jy-r1");
  auto o = run_cgmem("advise '" + dir + "'");
  ASSERT_EQ(o.code, 0) << o.text;
  EXPECT_EQ(o.text.find('\x1b'), std::string::npos);
  EXPECT_NE(o.text.find("x\\x1b[2Jy-r1"), std::string::npos) << o.text;
}

}  // namespace
