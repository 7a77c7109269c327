// The host's throttle rules from fixture trees: a release in
// PROC/sys/kernel/osrelease, and cgmem's patched kernel's
// SYS/module/memcontrol/parameters/stock_slots.
#include "host/rules.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "support/fixture.h"
#include "support/temp_dir.h"

namespace cgmem::host {
namespace {

using cgmem::testing::spit;

HostRoots tree(const cgmem::testing::TempDir& dir, const std::string& release, const char* slots) {
  std::filesystem::create_directories(dir.dir() / "proc/sys/kernel");
  spit(dir.path() + "/proc/sys/kernel/osrelease", release);
  if (slots) {
    std::filesystem::create_directories(dir.dir() / "sys/module/memcontrol/parameters");
    spit(dir.path() + "/sys/module/memcontrol/parameters/stock_slots", slots);
  }
  return HostRoots{.proc = dir.path() + "/proc", .sys = dir.path() + "/sys"};
}

TEST(HostRules, Debian612HasOneSlot) {
  cgmem::testing::TempDir dir;
  auto r = host_kernel_rules(tree(dir, "6.12.117+deb12-cloud-amd64\n", nullptr));
  EXPECT_EQ(r.version, (model::KernelVersion{6, 12}));
  EXPECT_EQ(r.stock_slots, 1u);
  EXPECT_FALSE(r.stock_slots_overridden);
}

TEST(HostRules, ThePatchedKernelsSlotsComeFromSysModule) {
  cgmem::testing::TempDir dir;
  auto r = host_kernel_rules(tree(dir, "6.12.117-cgmem-hz1000-throttle-slots\n", "7\n"));
  EXPECT_EQ(r.version, (model::KernelVersion{6, 12}));
  EXPECT_EQ(r.stock_slots, 7u);
  EXPECT_TRUE(r.stock_slots_overridden);
  EXPECT_EQ(r.per_page_rule(), "per page needs 7 or more other cgroups charging on this CPU");
}

TEST(HostRules, Mainline618HasSevenSlotsAndABadSlotsFileIsIgnored) {
  cgmem::testing::TempDir dir;
  auto r = host_kernel_rules(tree(dir, "6.18.44-fc-v1045\n", "garbage\n"));
  EXPECT_EQ(r.stock_slots, 7u);
  EXPECT_FALSE(r.stock_slots_overridden);
  EXPECT_TRUE(r.nonblocking_limit_write);
}

TEST(HostRules, NoReleaseIsDebian612sRules) {
  cgmem::testing::TempDir dir;
  auto r = host_kernel_rules(HostRoots{.proc = dir.path() + "/none", .sys = dir.path() + "/none"});
  EXPECT_EQ(r.version, (model::KernelVersion{6, 12}));
  EXPECT_EQ(r.stock_slots, 1u);
}

TEST(HostRules, ParseStockSlots) {
  EXPECT_EQ(parse_stock_slots("1\n"), 1u);
  EXPECT_EQ(parse_stock_slots("7"), 7u);
  for (const char* bad : {"", "0", "8", "-1", "7x", "0x7", "\n"}) EXPECT_FALSE(parse_stock_slots(bad)) << bad;
}

}  // namespace
}  // namespace cgmem::host
