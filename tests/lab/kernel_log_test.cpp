#include "lab/kernel_log.h"

#include <gtest/gtest.h>

namespace cgmem::lab {
namespace {

// As a 6.12 kernel logs a memcg OOM kill (the memory dump lines in between
// are abridged).
const std::vector<std::string> kMessages = {
    "cgmem invoked oom-killer: gfp_mask=0xcc0(GFP_KERNEL), order=0, oom_score_adj=0",
    "memory: usage 32768kB, limit 32768kB, failcnt 35",
    "oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=/,mems_allowed=0,"
    "oom_memcg=/cgmem/over,task_memcg=/cgmem/over,task=cgmem,pid=311,uid=0",
    "Memory cgroup out of memory: Killed process 311 (cgmem) total-vm:44000kB, anon-rss:32000kB",
    "oom_reaper: reaped process 311 (cgmem), now anon-rss:0kB, file-rss:0kB, shmem-rss:0kB",
    "oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=/,mems_allowed=0,"
    "oom_memcg=/cgmem/over2,task_memcg=/cgmem/over2,task=cgmem,pid=400,uid=0",
    "Memory cgroup out of memory: Killed process 400 (cgmem) total-vm:44000kB",
};

TEST(KernelLog, KeepsTheKillOfThisCgroupOnly) {
  auto kept = oom_lines_for(kMessages, "/cgmem/over");
  ASSERT_EQ(kept.size(), 3u);
  EXPECT_EQ(kept[0], kMessages[2]);
  EXPECT_EQ(kept[1], kMessages[3]);
  EXPECT_EQ(kept[2], kMessages[4]);
  auto other = oom_lines_for(kMessages, "/cgmem/over2");
  ASSERT_EQ(other.size(), 2u);
  EXPECT_EQ(other[1], kMessages[6]);
  EXPECT_TRUE(oom_lines_for(kMessages, "/cgmem/ove").empty());
}

TEST(KernelLog, WithoutPermissionTheLogIsEmpty) {
  KernelLog log("/nonexistent/kmsg");
  EXPECT_FALSE(log.is_open());
  EXPECT_TRUE(log.collect("/cgmem/over").empty());
}

}  // namespace
}  // namespace cgmem::lab
