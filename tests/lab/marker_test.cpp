#include "lab/marker.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "support/fixture.h"
#include "lab/gc.h"

namespace cgmem::lab {
namespace {

TEST(Marker, FormatAndParse) {
  EXPECT_EQ(format_mark({4242, "/w/runs/over-1"}), "pid=4242 dir=/w/runs/over-1");
  auto mark = parse_mark("pid=4242 dir=/w/runs/over 1");
  ASSERT_TRUE(mark);
  EXPECT_EQ(mark->driver, 4242);
  EXPECT_EQ(mark->run_dir, "/w/runs/over 1");
  EXPECT_FALSE(parse_mark("pid=0 dir=/x"));
  EXPECT_FALSE(parse_mark("pid=abc"));
  EXPECT_FALSE(parse_mark("user.something"));
  EXPECT_EQ(parse_mark("pid=7")->run_dir, "");
}

TEST(Marker, DriverAliveOnlyWhileItIsCgmem) {
  testing::TempDir tmp;
  std::filesystem::create_directories(tmp.path() + "/10");
  std::filesystem::create_directories(tmp.path() + "/11");
  std::filesystem::create_symlink("/usr/local/bin/cgmem", tmp.path() + "/10/exe");
  std::filesystem::create_symlink("/usr/bin/bash", tmp.path() + "/11/exe");
  EXPECT_TRUE(driver_alive(10, tmp.path()));
  EXPECT_FALSE(driver_alive(11, tmp.path()));  // the pid was reused
  EXPECT_FALSE(driver_alive(12, tmp.path()));  // gone
}

// Unmarked cgroups on the real kernel: tests/lab/vm/scenarios.sh. Here a
// plain directory is refused as a whole (gc_test.cpp).
TEST(Gc, APlainOrMissingParentIsRefused) {
  testing::TempDir tmp;
  std::filesystem::create_directories(tmp.path() + "/system.slice");
  auto entries = collect_garbage(tmp.path(), false);
  ASSERT_FALSE(entries);
  EXPECT_TRUE(std::filesystem::exists(tmp.path() + "/system.slice"));
  EXPECT_EQ(collect_garbage(tmp.path() + "/missing", false).error().message(),
            "open cgroup: " + tmp.path() + "/missing: No such file or directory");
}

TEST(Gc, DefaultParentPrefersTheVmsCgmemCgroup) {
  testing::TempDir tmp;
  EXPECT_EQ(default_parent(tmp.path(), "/user.slice/x"), tmp.path() + "/user.slice/x");
  EXPECT_EQ(default_parent(tmp.path(), "/"), tmp.path());
  std::filesystem::create_directories(tmp.path() + "/cgmem");
  EXPECT_EQ(default_parent(tmp.path(), "/user.slice/x"), tmp.path() + "/cgmem");
}

}  // namespace
}  // namespace cgmem::lab
