// /proc/PID/stat, /proc/PID/wchan and /proc/PID/cgroup on real and odd text.
#include <gtest/gtest.h>

#include <unistd.h>

#include "common/file.h"
#include "support/fixture.h"
#include "proc/self_cgroup.h"
#include "proc/stat.h"
#include "proc/wchan.h"

namespace cgmem::proc {
namespace {

using testing::fixture;

TEST(ProcStat, ReadsAThrottledTask) {
  std::string text = fixture("cgroup-v2-6.12-throttled/proc/stat");
  auto stat = parse_proc_stat(text);
  ASSERT_TRUE(stat.has_value());
  EXPECT_EQ(stat->pid, 158);
  EXPECT_EQ(stat->comm, "w");
  EXPECT_EQ(stat->state, 'D');
  EXPECT_EQ(stat->utime_ticks, 20u);
  EXPECT_EQ(stat->stime_ticks, 56u);
  EXPECT_EQ(stat->processor, 0);
}

TEST(ProcStat, CommWithSpacesAndParentheses) {
  std::string text = fixture("odd/proc-stat.odd-comm");
  auto stat = parse_proc_stat(text);
  ASSERT_TRUE(stat.has_value());
  EXPECT_EQ(stat->comm, "a) b)");
  EXPECT_EQ(stat->state, 'S');
  EXPECT_EQ(stat->utime_ticks, 7u);
  EXPECT_EQ(stat->stime_ticks, 3u);
  EXPECT_EQ(stat->processor, 1);
}

TEST(ProcStat, ReadsThisProcess) {
  auto text = read_file("/proc/self/stat", "this process's stat");
  ASSERT_TRUE(text.has_value());
  auto stat = parse_proc_stat(*text);
  ASSERT_TRUE(stat.has_value());
  EXPECT_EQ(stat->pid, ::getpid());
  EXPECT_EQ(stat->state, 'R');
  EXPECT_GE(stat->processor, 0);
}

TEST(ProcStat, TruncatedIsAnErrorWordForWord) {
  auto stat = parse_proc_stat(fixture("odd/proc-stat.truncated"), "/proc/1234/stat");
  ASSERT_FALSE(stat.has_value());
  EXPECT_EQ(stat.error().message(),
            "parse /proc/1234/stat: fewer than 15 fields or a bad state/utime/stime in "
            "'1234 (w) D 1 0 0 0'");
}

TEST(ProcStat, NoCommIsAnErrorWordForWord) {
  EXPECT_EQ(parse_proc_stat("1234 w D 1\n").error().message(),
            "parse stat: no '(comm)' in '1234 w D 1'");
  EXPECT_EQ(parse_proc_stat("x (w) D 1\n").error().message(), "parse stat: no pid in 'x (w) D 1'");
  EXPECT_FALSE(parse_proc_stat(")1 (").has_value());
}

TEST(Wchan, ReadsTheFunctionOrNothing) {
  EXPECT_EQ(parse_wchan(fixture("cgroup-v2-6.12-throttled/proc/wchan")),
            "mem_cgroup_handle_over_high");
  EXPECT_EQ(parse_wchan("0"), "");
  EXPECT_EQ(parse_wchan(""), "");
}

TEST(ProcCgroup, ReadsTheV2Line) {
  auto cgroups = parse_proc_cgroup(fixture("cgroup-v2-6.12-throttled/proc/cgroup"));
  ASSERT_TRUE(cgroups.has_value());
  EXPECT_EQ(cgroups->v2_path(), "/lab/run1");
  ASSERT_EQ(cgroups->lines.size(), 1u);
  EXPECT_TRUE(cgroups->lines[0].controllers.empty());
}

TEST(ProcCgroup, ReadsAHybridV1Machine) {
  auto cgroups = parse_proc_cgroup(fixture("odd/proc-cgroup.hybrid-v1"));
  ASSERT_TRUE(cgroups.has_value());
  EXPECT_EQ(cgroups->lines.size(), 10u);
  EXPECT_EQ(cgroups->v2_path(), "/");
  auto holding = [&](std::string_view controller) {  // the v1 line of a controller
    return std::ranges::find_if(cgroups->lines, [&](const CgroupLine& line) {
      return std::ranges::find(line.controllers, controller) != line.controllers.end();
    });
  };
  ASSERT_NE(holding("memory"), cgroups->lines.end());
  EXPECT_EQ(holding("memory")->hierarchy, 4u);
  EXPECT_EQ(holding("memory")->path, "/process_api/3cd0fb5ea67f913d5cc31752bd5ed906");
  EXPECT_EQ(holding("name=systemd")->hierarchy, 9u);
}

TEST(ProcCgroup, PathsMayContainColons) {
  auto cgroups = parse_proc_cgroup("0::/a:b\n1:cpu,cpuacct:/\n");
  ASSERT_TRUE(cgroups.has_value());
  EXPECT_EQ(cgroups->v2_path(), "/a:b");
  EXPECT_EQ(cgroups->lines[1].controllers, (std::vector<std::string>{"cpu", "cpuacct"}));
}

TEST(ProcCgroup, GarbageIsAnErrorWordForWord) {
  auto cgroups = parse_proc_cgroup("0:\nmemory\n", "/proc/self/cgroup");
  ASSERT_FALSE(cgroups.has_value());
  EXPECT_EQ(cgroups.error().message(),
            "parse /proc/self/cgroup: no 'ID:CONTROLLERS:PATH' line in '0:'");
  EXPECT_EQ(parse_proc_cgroup("").error().message(),
            "parse cgroup: no 'ID:CONTROLLERS:PATH' line in ''");
}

}  // namespace
}  // namespace cgmem::proc
