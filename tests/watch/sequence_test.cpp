// The classifier on sequences captured from the real kernel: a snapshot
// taken in the VM by tests/watch/vm/scenarios.sh (`cgmem watch --snapshot`,
// two reads 2 s apart of cgroups made with `cgmem run`), checked in as
// tests/fixtures/watch-vm-6.12 (and watch-vm-6.12-swap, taken with zram swap
// by tests/watch/vm/swap_snapshot.sh).
// Replayed as `cgmem watch --once` does.
#include <gtest/gtest.h>

#include <map>

#include "watch/render.h"
#include "watch/snapshot.h"

namespace cgmem::watch {
namespace {

const std::string kSnapshot = std::string(CGMEM_FIXTURES) + "/watch-vm-6.12";

class VmSnapshot : public ::testing::Test {
 protected:
  void SetUp() override {
    auto r = replay_snapshot(kSnapshot, {});
    ASSERT_TRUE(r) << r.error().message();
    replay_ = std::move(*r);
    for (const Row& row : replay_.rows) rows_[std::string(row.path)] = &row;
  }
  const Row& row(const std::string& path) {
    static const Row kNone{};
    auto it = rows_.find(path);
    EXPECT_NE(it, rows_.end()) << path << " is not in the snapshot";
    return it == rows_.end() ? kNone : *it->second;
  }
  Replay replay_;
  std::map<std::string, const Row*> rows_;
};

TEST_F(VmSnapshot, RecordsTheVmsKernel) {
  EXPECT_EQ(replay_.meta.kernel_facts.hz, 250u);
  EXPECT_EQ(replay_.meta.kernel_facts.page_size, 4096u);
  EXPECT_NEAR(double(replay_.meta.t_ns[1] - replay_.meta.t_ns[0]) / 1e9, 2.0, 0.5);
}

TEST_F(VmSnapshot, AnonymousMemoryPastMemoryHighIsThrottled) {
  const Row& r = row("/cgmem/throttled");
  EXPECT_EQ(r.state, State::throttled) << ::testing::PrintToString(describe(r));
  EXPECT_GT(r.rates.rise.high, 0u);
  EXPECT_EQ(r.rates.pgsteal_per_s, 0.0);  // no swap: nothing to reclaim
  EXPECT_GT(r.rates.memory_some, 0.5);
  ASSERT_TRUE(r.forecast.valid);
  EXPECT_GT(r.forecast.sleep_s, 0.0);
}

TEST_F(VmSnapshot, PageCachePastMemoryMaxIsAtMax) {
  const Row& r = row("/cgmem/cachemax");
  EXPECT_EQ(r.state, State::at_max) << ::testing::PrintToString(describe(r));
  EXPECT_EQ(r.sample.max.bytes(), 33554432u);
}

TEST_F(VmSnapshot, PageCachePastMemoryHighIsReclaiming) {
  const Row& r = row("/cgmem/cachehigh");
  EXPECT_EQ(r.state, State::reclaiming) << ::testing::PrintToString(describe(r));
}

TEST_F(VmSnapshot, OwnCodeReadBackIsThrashing) {
  const Row& r = row("/cgmem/thrash");
  EXPECT_EQ(r.state, State::thrashing) << ::testing::PrintToString(describe(r));
  EXPECT_GT(r.rates.pgmajfault_per_s, 0.0);
}

TEST_F(VmSnapshot, TheParentAddsUpItsChildrenButIsNotThrashing) {
  const Row& r = row("/cgmem");
  EXPECT_NE(r.state, State::thrashing);
  EXPECT_EQ(row("/cgmem/idle").state, State::ok);
}

}  // namespace
}  // namespace cgmem::watch

namespace cgmem::watch {
namespace {

// tests/fixtures/watch-vm-6.12-swap: the VM with 128 MiB of zram swap,
// cgroups at memory.high and memory.max swapping, one over memory.swap.high.
class VmSwapSnapshot : public ::testing::Test {
 protected:
  void SetUp() override {
    auto r = replay_snapshot(std::string(CGMEM_FIXTURES) + "/watch-vm-6.12-swap", {});
    ASSERT_TRUE(r) << r.error().message();
    replay_ = std::move(*r);
  }
  const Row& row(std::string_view path) {
    static const Row kNone{};
    for (const Row& r : replay_.rows)
      if (r.path == path) return r;
    ADD_FAILURE() << path << " is not in the snapshot";
    return kNone;
  }
  Replay replay_;
};

TEST_F(VmSwapSnapshot, AnonymousMemoryPastMemoryHighWithSwapIsSwapping) {
  const Row& r = row("/cgmem/swapping");
  EXPECT_EQ(r.state, State::swapping) << ::testing::PrintToString(describe(r));
  EXPECT_TRUE(r.reasons & kSwapIn);
  EXPECT_TRUE(r.reasons & kNearHigh);
  EXPECT_FALSE(r.rates.pswpin);  // 6.12: workingset_refault_anon stands in
  EXPECT_GT(r.rates.swapin_per_s, 64.0);
  EXPECT_EQ(r.rates.refault_file_per_s, 0.0);
  EXPECT_GT(r.sample.swap_current, 8u << 20);
  EXPECT_LT(r.sample.current, r.sample.high.bytes());  // held at memory.high, not over it
  EXPECT_FALSE(r.forecast.valid);
}

TEST_F(VmSwapSnapshot, AnonymousMemoryAtMemoryMaxWithSwapIsSwappingNotKilled) {
  const Row& r = row("/cgmem/swapmax");
  EXPECT_EQ(r.state, State::swapping) << ::testing::PrintToString(describe(r));
  EXPECT_TRUE(r.reasons & kMaxRising);
  EXPECT_EQ(r.rates.rise.oom_kill, 0u);
}

TEST_F(VmSwapSnapshot, OverMemorySwapHighUnderMemoryHighIsThrottledByTheSwapTerm) {
  const Row& r = row("/cgmem/swaphigh");
  EXPECT_EQ(r.state, State::throttled) << ::testing::PrintToString(describe(r));
  EXPECT_TRUE(r.reasons & kSwapHighRising);
  EXPECT_TRUE(r.reasons & kOverSwapHigh);
  EXPECT_FALSE(r.reasons & kHighRising);
  EXPECT_TRUE(r.sample.high.is_max());
  EXPECT_EQ(r.tasks.over_high, 1u);
  EXPECT_GT(r.rates.sleeps_per_s, 1.0);
  ASSERT_TRUE(r.forecast.valid);
  EXPECT_EQ(r.forecast.memory_delay_ms, 0.0);
  EXPECT_GT(r.forecast.swap_delay_ms, 2000.0);
  EXPECT_TRUE(r.forecast.clamped);
  EXPECT_DOUBLE_EQ(r.forecast.sleep_s, 2.0);  // 2 * HZ jiffies at HZ=250
}

TEST_F(VmSwapSnapshot, TheParentAddsUpItsChildrensSwapButIsNeitherSwappingNorThrottled) {
  const Row& r = row("/cgmem");
  EXPECT_EQ(r.state, State::ok) << ::testing::PrintToString(describe(r));
  EXPECT_TRUE(r.reasons & kSwapHighRising);  // the child's passes, counted on the parent too
  EXPECT_EQ(r.rates.sleeps_per_s, 0.0);
}

}  // namespace
}  // namespace cgmem::watch
