// The verdict against the study's reference case (HZ=1000, memory.high
// 241590272, memory.max 256 MiB): 27 s to the kill at one sleep per batch,
// about 1,720 s at one per page (results/predict.md, section 3).
#include <gtest/gtest.h>

#include "managers/kubelet.h"
#include "managers/verdict.h"

namespace cgmem::managers {
namespace {

Translation study() {
  auto k = resolve_kubelet_config({.minor = 36, .memory_qos = true, .factor = 0.9});
  return translate_kubelet(*k, KubePod{.containers = {{.request = 0, .limit = 268435456}}}).value();
}

TEST(Verdict, Fits) {
  auto v = verdict(study(), "container app", {.working_set = 200 << 20});
  ASSERT_TRUE(v);
  EXPECT_EQ(v->kind, model::VerdictKind::fits);
  EXPECT_EQ(v->summary, "fits: 200MiB is within memory.high 230.4MiB and memory.max 256MiB");
}

TEST(Verdict, ThrottledBetweenHighAndMax) {
  // The anon-fit workload: about 239.2 MiB in memory.current.
  auto v = verdict(study(), "container app", {.working_set = 250820198});
  ASSERT_TRUE(v);
  EXPECT_EQ(v->kind, model::VerdictKind::throttled);
  // 64000 x o^2 ms with o = 3.82%: about 93 ms a sleep; 64 of them per page.
  EXPECT_NEAR(v->per_batch.op_seconds, 0.093, 0.002);
  EXPECT_NEAR(v->per_page.op_seconds / v->per_batch.op_seconds, 64, 1e-9);
}

TEST(Verdict, OomAfterTheThrottledClimb) {
  auto v = verdict(study(), "container app", {.working_set = 320 << 20});
  ASSERT_TRUE(v);
  EXPECT_EQ(v->kind, model::VerdictKind::oom);
  EXPECT_NEAR(*v->per_batch.seconds_to_kill, 27, 1);
  EXPECT_NEAR(*v->per_page.seconds_to_kill, 1720, 30);
}

TEST(Verdict, MaxAloneKillsAtFullSpeed) {
  auto k = resolve_kubelet_config({.minor = 36});
  auto t = translate_kubelet(*k, KubePod{.containers = {{.request = 0, .limit = 268435456}}}).value();
  auto v = verdict(t, "container app", {.working_set = 320 << 20, .alloc_rate = 1024.0 * 1024 * 1024});
  ASSERT_TRUE(v);
  EXPECT_EQ(v->kind, model::VerdictKind::oom);
  EXPECT_FALSE(v->per_batch.seconds_to_kill);
  EXPECT_DOUBLE_EQ(*v->seconds_to_max_unthrottled, 0.25);
}

TEST(Verdict, HzChangesTheSleep) {
  auto at1000 = verdict(study(), "container app", {.working_set = 250820198});
  auto at250 = verdict(study(), "container app", {.working_set = 250820198, .hz = 250});
  // The formula scales with HZ in jiffies, so the same milliseconds up to rounding.
  EXPECT_NEAR(at250->per_batch.op_seconds, at1000->per_batch.op_seconds, 0.005);
}

}  // namespace
}  // namespace cgmem::managers
