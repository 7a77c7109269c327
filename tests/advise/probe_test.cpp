// --probe writes memory.high of one cgroup only: the one its own probing
// run made and marked. Anything else is refused before the first write
// (the stepping itself runs on the real kernel: tests/advise/vm).
#include <gtest/gtest.h>

#include "advise/probe.h"
#include "lab/marker.h"
#include "support/fixture.h"
#include "support/temp_dir.h"

namespace cgmem::advise {
namespace {

class AdviseProbe : public ::testing::Test {
 protected:
  AdviseProbe() : dir_(tmp_.copy_fixture("watch-vm-6.12/0/cgmem/throttled", "cg")) {}
  ProbeOptions options() {
    return {.cgroup = dir_, .driver = 4242, .run_dir = "/runs/app-probe", .start_high = 40 << 20,
            .running = [] { return true; }};
  }
  std::string high() { return cgmem::testing::slurp(dir_ + "/memory.high"); }
  cgmem::testing::TempDir tmp_;
  std::string dir_;
};

TEST_F(AdviseProbe, ACgroupWithoutTheRunsMarkIsNotWritten) {
  std::string before = high();
  auto p = probe(options());
  ASSERT_FALSE(p);
  EXPECT_NE(p.error().message().find("not the cgroup of the probing run"), std::string::npos) << p.error().message();
  EXPECT_EQ(high(), before);
}

TEST_F(AdviseProbe, AnotherRunsMarkIsNotEnoughAndNeitherIsADirectoryOffCgroupfs) {
  if (!lab::set_mark(cgroup::system_effects(), dir_, {.driver = 1, .run_dir = "/runs/other"})) GTEST_SKIP() << "no trusted.* xattrs here";
  std::string before = high();
  EXPECT_FALSE(probe(options()));
  EXPECT_EQ(high(), before);
  // Its own mark, but not a cgroup: the Cgroup handle refuses the write.
  ASSERT_TRUE(lab::set_mark(cgroup::system_effects(), dir_, {.driver = 4242, .run_dir = "/runs/app-probe"}));
  auto p = probe(options());
  ASSERT_FALSE(p);
  EXPECT_NE(p.error().message().find("cgroup2"), std::string::npos) << p.error().message();
  EXPECT_EQ(high(), before);
}

}  // namespace
}  // namespace cgmem::advise
