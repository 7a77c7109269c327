#include "lab/sampler.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "lab_fixture.h"

namespace cgmem::lab {
namespace {

using testing::ThrottledTree;

nlohmann::json tick_once(Sampler& sampler, const std::string& out, TickSummary* summary = nullptr) {
  int fd = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  auto tick = sampler.tick(91300000000, fd);
  ::close(fd);
  EXPECT_TRUE(tick) << tick.error().message();
  if (summary && tick) *summary = *tick;
  std::string text = testing::slurp(out);
  EXPECT_EQ(text.back(), '\n');
  EXPECT_EQ(text.find('\n'), text.size() - 1);  // one line
  return nlohmann::json::parse(text);
}

TEST(Sampler, OneLineWithEveryFileOfAThrottledCgroup) {
  ThrottledTree tree;
  auto sampler = Sampler::open(tree.cgroup, tree.proc_root);
  ASSERT_TRUE(sampler) << sampler.error().message();
  TickSummary summary;
  auto j = tick_once(**sampler, tree.tmp.path() + "/samples", &summary);
  EXPECT_EQ(j["t_ns"], 91300000000u);
  EXPECT_EQ(j["memory_current"], 34140160u);
  EXPECT_EQ(j["memory_peak"], 34140160u);
  EXPECT_EQ(j["memory_events"]["high"], 309);
  EXPECT_EQ(j["memory_events"]["oom_kill"], 0);
  EXPECT_EQ(j["memory_events_local"]["high"], 309);
  EXPECT_DOUBLE_EQ(j["memory_pressure"]["some"]["avg10"].get<double>(), 48.30);
  EXPECT_EQ(j["memory_pressure"]["full"]["total"], 6027841u);
  EXPECT_EQ(j["io_pressure"]["some"]["total"], 0u);
  EXPECT_EQ(j["memory_stat"]["anon"], 33566720u);
  EXPECT_EQ(j["cpu_stat"]["usage_usec"], 922659u);
  EXPECT_EQ(j["io_stat"]["254:0"]["rbytes"], 16777216u);
  EXPECT_EQ(j["io_stat"]["254:0"]["rios"], 128u);
  ASSERT_EQ(j["procs"].size(), 1u);
  EXPECT_EQ(j["procs"][0], nlohmann::json::parse(
                               R"({"pid":158,"state":"D","utime_ticks":20,"stime_ticks":56,)"
                               R"("cpu":0,"wchan":"mem_cgroup_handle_over_high"})"));
  EXPECT_EQ(summary.current, 34140160u);
  EXPECT_EQ(summary.events.high, 309u);
  EXPECT_EQ(summary.procs, 1u);
  EXPECT_FALSE(j.contains("read_errors"));
  EXPECT_EQ(summary.read_errors, 0u);
}

TEST(Sampler, FollowsCgroupProcsAndLeavesOutMissingFiles) {
  ThrottledTree tree;
  std::filesystem::remove(tree.cgroup + "/io.stat");
  auto sampler = Sampler::open(tree.cgroup, tree.proc_root);
  ASSERT_TRUE(sampler);
  auto first = tick_once(**sampler, tree.tmp.path() + "/samples");
  EXPECT_FALSE(first.contains("io_stat"));
  EXPECT_EQ(first["procs"].size(), 1u);
  testing::spit(tree.cgroup + "/cgroup.procs", "");
  auto second = tick_once(**sampler, tree.tmp.path() + "/samples");
  EXPECT_EQ(second["procs"], nlohmann::json::array());
  // A pid whose /proc files are gone keeps only its pid.
  testing::spit(tree.cgroup + "/cgroup.procs", "999\n");
  auto third = tick_once(**sampler, tree.tmp.path() + "/samples");
  EXPECT_EQ(third["procs"], nlohmann::json::parse(R"([{"pid":999}])"));
}

// A file that could not be read is not just left out of the line: it is
// named with its errno, and the tick counts it.
TEST(Sampler, AFileThatCannotBeReadIsNamedNotDropped) {
  ThrottledTree tree;
  auto sampler = Sampler::open(tree.cgroup, tree.proc_root);
  ASSERT_TRUE(sampler);
  testing::spit(tree.cgroup + "/memory.peak", "not a number\n");
  testing::spit(tree.cgroup + "/memory.stat", std::string(64 * 1024, 'x'));  // fills the read buffer
  TickSummary summary;
  auto j = tick_once(**sampler, tree.tmp.path() + "/samples", &summary);
  EXPECT_FALSE(j.contains("memory_peak"));
  EXPECT_FALSE(j.contains("memory_stat"));
  EXPECT_EQ(j["read_errors"], nlohmann::json::parse(R"({"memory.peak":"EINVAL","memory.stat":"E2BIG"})"));
  EXPECT_EQ(summary.read_errors, 2u);
  EXPECT_EQ(j["memory_current"], 34140160u);  // the rest is there
}

TEST(Sampler, NeedsMemoryCurrent) {
  ThrottledTree tree;
  std::filesystem::remove(tree.cgroup + "/memory.current");
  auto sampler = Sampler::open(tree.cgroup, tree.proc_root);
  ASSERT_FALSE(sampler);
  EXPECT_EQ(sampler.error().message(),
            "cannot sample the cgroup: memory.current is missing: " + tree.cgroup +
                " (is the memory controller enabled in the parent's cgroup.subtree_control?)");
}

}  // namespace
}  // namespace cgmem::lab
