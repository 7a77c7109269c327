// `cgmem advise --cgroup`: a cgroup read by the watch scanner on a clock the
// test drives, its files rewritten between reads as a live cgroup's would be.
#include <gtest/gtest.h>

#include <csignal>
#include <functional>

#include "advise/fake_runs.h"
#include "advise/live.h"
#include "support/fixture.h"
#include "support/temp_dir.h"

namespace cgmem::advise {
namespace {

using testing::kMiB;

// Jumps to each deadline; `tick` sees how many reads came before.
class FakeClock final : public Clock {
 public:
  uint64_t now_ns() override { return now; }
  void sleep_until(uint64_t deadline_ns, int) override {
    now = std::max(now, deadline_ns);
    if (tick) tick(reads++);
  }
  uint64_t now = 1'000'000'000;
  int reads = 0;
  std::function<void(int)> tick;
};

class AdviseLive : public ::testing::Test {
 protected:
  AdviseLive() : cgroup_(tmp_.copy_fixture("watch-vm-6.12/0/cgmem/throttled", "cg")) {
    put("memory.high", "max\n");
    put("memory.max", "max\n");
    events(0);
  }
  void put(const std::string& file, const std::string& text) { cgmem::testing::spit(cgroup_ + "/" + file, text); }
  void current(uint64_t bytes, uint64_t inactive_file) {
    put("memory.current", std::to_string(bytes) + "\n");
    put("memory.stat", "anon " + std::to_string(bytes - inactive_file) + "\nfile " + std::to_string(inactive_file) +
                           "\ninactive_file " + std::to_string(inactive_file) + "\n");
  }
  void events(uint64_t high) {
    put("memory.events.local", "low 0\nhigh " + std::to_string(high) + "\nmax 0\noom 0\noom_kill 0\noom_group_kill 0\n");
  }
  LiveOptions options() {
    return {.cgroup = cgroup_, .for_ns = 10'000'000'000, .interval_ns = 1'000'000'000, .kernel = "6.12.117",
            .hz = 1000, .clock = &clock_};
  }
  cgmem::testing::TempDir tmp_;
  std::string cgroup_;
  FakeClock clock_;
};

TEST_F(AdviseLive, ASteadyCgroupGivesItsWorkingSetWithoutItsPageCache) {
  clock_.tick = [&](int i) { current((i < 3 ? 40 + 40 * i : 120) * kMiB, 20 * kMiB); };
  auto live = watch_usage(options());
  ASSERT_TRUE(live) << live.error().message();
  const Usage& u = live->usage;
  EXPECT_EQ(u.series.size(), 11u) << "0 s to 10 s at 1 s";
  EXPECT_EQ(u.working_set, 100 * kMiB);
  EXPECT_EQ(u.peak_current, 120 * kMiB);
  EXPECT_DOUBLE_EQ(u.duration_s, 10);
  EXPECT_FALSE(u.growing);
  EXPECT_EQ(u.dir, cgroup_);
  EXPECT_TRUE(live->notes.empty());
}

TEST_F(AdviseLive, AGrowingCgroupIsGrowing) {
  clock_.tick = [&](int i) { current((40 + 8 * i) * kMiB, 0); };
  auto live = watch_usage(options());
  ASSERT_TRUE(live) << live.error().message();
  EXPECT_TRUE(live->usage.growing);
  EXPECT_NEAR(live->usage.growth_bytes_per_s, 8.0 * kMiB, 1);
}

TEST_F(AdviseLive, LimitsThatShapedTheUsageAreRefusedAndOthersNamed) {
  put("memory.high", "104857600\n");
  clock_.tick = [&](int i) {
    current(90 * kMiB, 0);
    events(i >= 5 ? 17 : 0);
  };
  auto shaped = watch_usage(options());
  ASSERT_FALSE(shaped);
  EXPECT_NE(shaped.error().message().find("its limits shaped its usage while it was watched (17 memory.high"),
            std::string::npos)
      << shaped.error().message();
  clock_.tick = [&](int) {
    current(90 * kMiB, 0);
    events(17);
  };
  auto untouched = watch_usage(options());
  ASSERT_TRUE(untouched) << untouched.error().message();
  ASSERT_EQ(untouched->notes.size(), 1u);
  EXPECT_NE(untouched->notes[0].find("memory.high 100MiB"), std::string::npos) << untouched->notes[0];
}

TEST_F(AdviseLive, AStopEndsTheWatchAndKeepsWhatWasRead) {
  volatile std::sig_atomic_t stop = 0;
  clock_.tick = [&](int i) {
    current(50 * kMiB, 0);
    stop = i >= 4;
  };
  LiveOptions o = options();
  o.stop = &stop;
  auto live = watch_usage(o);
  ASSERT_TRUE(live) << live.error().message();
  EXPECT_EQ(live->usage.series.size(), 4u);
  ASSERT_FALSE(live->notes.empty());
  EXPECT_NE(live->notes[0].find("the watch was stopped after 3 s of 10 s"), std::string::npos) << live->notes[0];
}

TEST_F(AdviseLive, AVanishedOrEmptyCgroupIsAnError) {
  clock_.tick = [&](int i) {
    current(50 * kMiB, 0);
    if (i == 2) std::filesystem::remove_all(cgroup_);
  };
  EXPECT_FALSE(watch_usage(options()));
  EXPECT_FALSE(watch_usage({.cgroup = tmp_.path() + "/none", .for_ns = 1, .clock = &clock_}));
}

}  // namespace
}  // namespace cgmem::advise
