// Host-side checks on what the VM rig's scenarios (tests/vm/rig/scenarios)
// brought back from one boot of the real 6.12 kernel. The boot is the CTest
// fixture vm_rig_boot; each scenario's files are in CGMEM_VM_OUT/rig/NAME/.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "cgroup/flat_keyed.h"
#include "cgroup/pressure.h"

namespace {

std::string read(const std::string& scenario, const std::string& file) {
  std::ifstream in(std::string(CGMEM_VM_OUT) + "/rig/" + scenario + "/" + file);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string trimmed(const std::string& scenario, const std::string& file) {
  std::string text = read(scenario, file);
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text;
}

cgmem::cgroup::MemoryEvents events(const std::string& scenario, const std::string& file) {
  auto parsed = cgmem::cgroup::parse_memory_events(read(scenario, file));
  EXPECT_TRUE(parsed.has_value()) << scenario << "/" << file << ": " << read(scenario, file);
  return parsed.value_or(cgmem::cgroup::MemoryEvents{});
}

// Every scenario ran to its end (status 0) and the log is there to read.
void expect_ran(const std::string& scenario) {
  EXPECT_EQ(trimmed(scenario, "status"), "0") << read(scenario, "log");
}

TEST(VmRig, OomAtMaxKillsTheProcess) {
  expect_ran("oom_at_max");
  EXPECT_EQ(trimmed("oom_at_max", "memory.max"), "33554432");
  EXPECT_EQ(trimmed("oom_at_max", "alloc_status"), "137");  // 128 + SIGKILL
  auto e = events("oom_at_max", "memory.events");
  EXPECT_EQ(e.oom_kill, 1u);
  EXPECT_GE(e.oom.value_or(0), 1u);
  EXPECT_GE(e.max.value_or(0), 1u);
  EXPECT_EQ(e.high, 0u);
  EXPECT_EQ(read("oom_at_max", "alloc.out").find("allocated"), std::string::npos);
}

TEST(VmRig, ThrottleAtHighSlowsWithoutKilling) {
  expect_ran("throttle_at_high");
  EXPECT_EQ(trimmed("throttle_at_high", "alive_after_10s"), "yes") << read("throttle_at_high", "alloc.out");
  auto before = events("throttle_at_high", "memory.events.before");
  auto after = events("throttle_at_high", "memory.events.after");
  EXPECT_EQ(before.high, 0u);
  EXPECT_GT(after.high.value_or(0), 0u);
  EXPECT_EQ(after.oom_kill, 0u);
  EXPECT_EQ(after.max, 0u);
  auto p0 = cgmem::cgroup::parse_pressure(read("throttle_at_high", "memory.pressure.before"), "before");
  auto p1 = cgmem::cgroup::parse_pressure(read("throttle_at_high", "memory.pressure.after"), "after");
  ASSERT_TRUE(p0.has_value());
  ASSERT_TRUE(p1.has_value());
  EXPECT_GT(p1->some.value_or(cgmem::cgroup::PressureLine{}).total_usec,
            p0->some.value_or(cgmem::cgroup::PressureLine{}).total_usec);
  // Held above memory.high (the throttle lets usage overshoot: 32.5 MiB was
  // measured at 10 s) and far from the 40 MiB it asked for.
  uint64_t current = std::stoull(trimmed("throttle_at_high", "memory.current"));
  EXPECT_GT(current, 28u << 20);
  EXPECT_LT(current, 38u << 20);
  EXPECT_EQ(read("throttle_at_high", "alloc.out").find("allocated"), std::string::npos);
  // Killed at the end by cgroup.kill: 128 + SIGKILL.
  EXPECT_EQ(trimmed("throttle_at_high", "alloc_status"), "137");
}

TEST(VmRig, LimitsReadBackPageRounded) {
  expect_ran("page_rounding");
  EXPECT_EQ(trimmed("page_rounding", "memory.high"), "30195712");
  EXPECT_EQ(trimmed("page_rounding", "memory.max"), "30195712");
}

TEST(VmRig, CgroupHandleCreatesFillsKillsWaitsAndRemoves) {
  expect_ran("cgroup_handle");
  std::string probe = read("cgroup_handle", "probe.txt");
  for (const char* line : {"open_parent=ok\n", "create=ok\n", "set_limit=ok\n", "memory_max=67108864\n",
                           "spawn=ok\n", "procs=ok\n", "procs_count=1\n", "procs_has_child=yes\n",
                           "kill_all=ok\n", "wait_empty=ok\n", "child_signal=9\n", "populated=ok\n",
                           "populated_after=0\n", "remove=ok\n", "gone=yes\n"}) {
    EXPECT_NE(probe.find(line), std::string::npos) << "missing " << line << "in:\n" << probe;
  }
  auto at = probe.find("memory_current=");
  ASSERT_NE(at, std::string::npos);
  EXPECT_GE(std::stoull(probe.substr(at + 15)), 16u << 20) << probe;
}

}  // namespace
