// The rules that change with the kernel version, and the study's reference
// case (memory.high 241590272, memory.max 268435456, HZ=1000, from where
// sleeping starts) predicted by them: 1720.258 s per page, 27.041 s per
// batch, the figures of predict_test.cpp.
#include "model/kernel_rules.h"

#include <gtest/gtest.h>

#include "model/predict.h"

namespace cgmem::model {
namespace {

TEST(KernelVersion, ParsesMajorMinorOfAReleaseString) {
  EXPECT_EQ(parse_kernel_version("6.12.117+deb12-cloud-amd64"), (KernelVersion{6, 12}));
  EXPECT_EQ(parse_kernel_version("6.12.117-cgmem-hz1000-throttle-slots"), (KernelVersion{6, 12}));
  EXPECT_EQ(parse_kernel_version("6.1.0-37-amd64"), (KernelVersion{6, 1}));
  EXPECT_EQ(parse_kernel_version("6.16"), (KernelVersion{6, 16}));
  EXPECT_EQ(parse_kernel_version("6.18.44-fc-v1045"), (KernelVersion{6, 18}));
  EXPECT_EQ(parse_kernel_version("5.19-rc1"), (KernelVersion{5, 19}));
  EXPECT_EQ(parse_kernel_version("6.16-rc1"), (KernelVersion{6, 16}));
  EXPECT_EQ(parse_kernel_version("7.0.0"), (KernelVersion{7, 0}));
  for (const char* bad : {"", "six", "6", "6.", ".12", "six.twelve", "6-12", "-6.12", " 6.12", "99999999999.1"})
    EXPECT_FALSE(parse_kernel_version(bad)) << bad;
  EXPECT_EQ(version_text({6, 12}), "6.12");
}

// What the host probe, the VM's --stock-slots check and the report read
// from a release alone.
TEST(KernelVersion, StockSlotsOfARelease) {
  EXPECT_EQ(version_stock_slots("6.16.3"), 7u);
  EXPECT_EQ(version_stock_slots("6.18.0-cgmem-6.18.0-hz1000"), 7u);
  EXPECT_EQ(version_stock_slots("7.0.1"), 7u);
  EXPECT_EQ(version_stock_slots("6.12.117-cgmem-hz1000-throttle-slots"), 1u);
  EXPECT_EQ(version_stock_slots("6.1.0-57-cloud-amd64"), 1u);
  EXPECT_EQ(version_stock_slots(""), std::nullopt);
}

TEST(KernelRules, ByVersion) {
  KernelRules r61 = rules_for({6, 1}), r612 = rules_for({6, 12}), r616 = rules_for({6, 16}), r618 = rules_for({6, 18});
  EXPECT_EQ(r61.stock_slots, 1u);
  EXPECT_EQ(r612.stock_slots, 1u);
  EXPECT_EQ(r616.stock_slots, 7u);
  EXPECT_EQ(r618.stock_slots, 7u);
  EXPECT_EQ(rules_for({6, 15}).stock_slots, 1u);
  EXPECT_EQ(r61.charge_batch, 64u);
  EXPECT_EQ(rules_for({5, 19}).charge_batch, 32u);
  for (const auto& r : {r61, r612, r618}) EXPECT_EQ(r.high_events_per_sleep, kHighEventsPerSleep);
  EXPECT_FALSE(r61.dying_tasks_not_throttled);
  EXPECT_FALSE(rules_for({6, 7}).dying_tasks_not_throttled);
  EXPECT_TRUE(rules_for({6, 8}).dying_tasks_not_throttled);
  EXPECT_TRUE(r612.dying_tasks_not_throttled);
  EXPECT_FALSE(r612.nonblocking_limit_write);
  EXPECT_FALSE(rules_for({6, 15}).nonblocking_limit_write);
  EXPECT_TRUE(r616.nonblocking_limit_write);
  EXPECT_FALSE(r612.stock_slots_overridden);
}

TEST(KernelRules, ASlotOverrideIsAPatchedKernelsBootParameter) {
  KernelRules patched = rules_for({6, 12}, 7);
  EXPECT_EQ(patched.stock_slots, 7u);
  EXPECT_TRUE(patched.stock_slots_overridden);
  EXPECT_FALSE(patched.nonblocking_limit_write);  // still 6.12's limit writes
  EXPECT_EQ(rules_for({6, 18}, 1).stock_slots, 1u);
  EXPECT_EQ(rules_for({6, 12}, 0).stock_slots, 1u);   // clamped to the patch's 1..7
  EXPECT_EQ(rules_for({6, 12}, 99).stock_slots, 7u);
}

TEST(KernelRules, NamesAndThePerPageRuleWordForWord) {
  EXPECT_EQ(rules_for({6, 12}).per_page_rule(), "per page when any other cgroup charges on this CPU");
  EXPECT_EQ(rules_for({6, 16}).per_page_rule(), "per page needs 7 or more other cgroups charging on this CPU");
  EXPECT_EQ(rules_for({6, 12}, 3).per_page_rule(), "per page needs 3 or more other cgroups charging on this CPU");
  EXPECT_EQ(rules_for({6, 1}).names(),
            (std::vector<std::string>{"stock_slots_1", "charge_batch_64", "high_events_per_sleep_17"}));
  EXPECT_EQ(rules_for({6, 18}).names(),
            (std::vector<std::string>{"stock_slots_7", "charge_batch_64", "high_events_per_sleep_17",
                                      "dying_tasks_not_throttled", "nonblocking_limit_write"}));
  EXPECT_EQ(default_rules().version, (KernelVersion{6, 12}));
}

TEST(KernelRules, OneNeighbourIsPerPageOn612AndPerBatchOn616) {
  constexpr uint64_t kHigh = 241590272, kMax = 268435456;
  auto study = [&](KernelRules rules, uint32_t others) {
    Kernel k{.hz = 1000, .rules = rules};
    return Throttle{.kernel = k, .high = kHigh, .sleeps_per_batch = sleeps_per_batch_beside(k, others)};
  };
  const uint64_t from = *sleep_start(study(default_rules(), 0));
  EXPECT_EQ(sleeps_per_batch_beside(Kernel{.rules = rules_for({6, 12})}, 0), 1.0);
  EXPECT_NEAR(grow(study(rules_for({6, 12}), 1), from, kMax).seconds, 1720.258, 0.001);
  EXPECT_NEAR(grow(study(rules_for({6, 1}), 1), from, kMax).seconds, 1720.258, 0.001);
  EXPECT_NEAR(grow(study(rules_for({6, 16}), 1), from, kMax).seconds, 27.041, 0.001);
  EXPECT_NEAR(grow(study(rules_for({6, 16}), 6), from, kMax).seconds, 27.041, 0.001);
  EXPECT_NEAR(grow(study(rules_for({6, 16}), 7), from, kMax).seconds, 1720.258, 0.001);
  EXPECT_NEAR(grow(study(rules_for({6, 12}, 7), 1), from, kMax).seconds, 27.041, 0.001);
}

}  // namespace
}  // namespace cgmem::model
