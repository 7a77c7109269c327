// The batches behind a report: the parts of a sharded plan that are there
// and those that are missing, and the hosts the batches ran on, from the
// batch.json beside each run.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "report/shards.h"
#include "support/temp_dir.h"

namespace cgmem::report {
namespace {

namespace fs = std::filesystem;

// A batch directory BATCH holding one run directory, with this batch.json.
report::Run batch_with_a_run(const std::string& batch, const std::string& record) {
  fs::create_directories(batch + "/anon-over-max-r1");
  std::ofstream(batch + "/batch.json") << record;
  return report::Run{.dir = batch + "/anon-over-max-r1"};
}

std::string record(int index, int count, const std::string& hostname) {
  return R"({"schema": 1, "name": "quick", "shard": {"index": )" + std::to_string(index) + R"(, "count": )" +
         std::to_string(count) + R"(, "plan_runs": 12}, "host": {"hostname": ")" + hostname +
         R"(", "kernel": "6.12.117", "cpus": 2, "hz": 250, "virtualized": "tcg"}, "runs": []})";
}

TEST(Shards, SaysWhichPartsOfThePlanAreMissing) {
  cgmem::testing::TempDir tmp;
  std::vector<report::Run> runs = {batch_with_a_run(tmp.path() + "/a", record(1, 3, "node1")),
                           batch_with_a_run(tmp.path() + "/b", record(3, 3, "node2"))};
  Batches b = read_batches(runs);
  ASSERT_EQ(b.shards.size(), 1u);
  const ShardSet& s = b.shards[0];
  EXPECT_EQ(s.name, "quick");
  EXPECT_EQ(s.count, 3);
  EXPECT_EQ(s.present, (std::vector<int>{1, 3}));
  EXPECT_EQ(s.missing, (std::vector<int>{2}));
  EXPECT_EQ(s.runs, 2u);
  EXPECT_EQ(s.plan_runs, 12u);
  ASSERT_EQ(b.hosts.size(), 2u);
  auto notes = batch_set_notes(b);
  ASSERT_EQ(notes.size(), 2u);
  EXPECT_EQ(notes[0], "Plan quick in 3 shards: 2/3 missing; this report has 2 of its 12 runs. "
                      "Give the missing shards' batches too.");
  EXPECT_EQ(notes[1], "The batches ran on 2 hosts: node1 (kernel 6.12.117, 2 CPUs, HZ 250, VM tcg): 1 runs; "
                      "node2 (kernel 6.12.117, 2 CPUs, HZ 250, VM tcg): 1 runs.");
  auto j = shards_json(b);
  EXPECT_EQ(j[0]["missing"], nlohmann::json::array({2}));
}

TEST(Shards, AllPartsAndAPartGivenTwice) {
  cgmem::testing::TempDir tmp;
  std::vector<report::Run> runs = {batch_with_a_run(tmp.path() + "/a", record(1, 2, "node1")),
                           batch_with_a_run(tmp.path() + "/b", record(2, 2, "node1")),
                           batch_with_a_run(tmp.path() + "/c", record(2, 2, "node1"))};
  Batches b = read_batches(runs);
  ASSERT_EQ(b.shards.size(), 1u);
  EXPECT_TRUE(b.shards[0].missing.empty());
  EXPECT_EQ(b.shards[0].twice, (std::vector<int>{2}));
  ASSERT_EQ(b.hosts.size(), 1u);
  EXPECT_EQ(b.hosts[0].batches, 3u);
  auto notes = batch_set_notes(b);
  ASSERT_EQ(notes.size(), 2u);
  EXPECT_EQ(notes[0], "Plan quick: all 2 shards, 3 of its 12 runs.");
  EXPECT_EQ(notes[1], "Plan quick: shard 2/2 given twice; its runs are counted from every copy.");
}

TEST(Shards, NamesFromTheRecordAreEscapedInTheNotes) {
  cgmem::testing::TempDir tmp;
  std::vector<report::Run> runs = {batch_with_a_run(tmp.path() + "/a", record(1, 2, "evil\\u001b[2J\\nhost")),
                                   batch_with_a_run(tmp.path() + "/b", record(2, 2, "node2"))};
  auto notes = batch_set_notes(read_batches(runs));
  ASSERT_EQ(notes.size(), 2u);
  EXPECT_EQ(notes[1].find('\x1b'), std::string::npos) << notes[1];
  EXPECT_EQ(notes[1].find('\n'), std::string::npos) << notes[1];
}

TEST(Shards, AWholeBatchOrAnUnreadableRecordIsNoShard) {
  cgmem::testing::TempDir tmp;
  std::vector<report::Run> runs = {batch_with_a_run(tmp.path() + "/a", R"({"name": "quick", "runs": []})"),
                           batch_with_a_run(tmp.path() + "/b", "not json"),
                           batch_with_a_run(tmp.path() + "/c", R"({"name": "q", "shard": {"index": 5, "count": 2}})")};
  fs::create_directories(tmp.path() + "/d/run");
  ASSERT_EQ(::mkfifo((tmp.path() + "/d/batch.json").c_str(), 0600), 0);  // never read, never a hang
  runs.push_back(report::Run{.dir = tmp.path() + "/d/run"});
  Batches b = read_batches(runs);
  EXPECT_TRUE(b.shards.empty());
  EXPECT_TRUE(b.hosts.empty());
  EXPECT_TRUE(batch_set_notes(b).empty());
}

}  // namespace
}  // namespace cgmem::report
