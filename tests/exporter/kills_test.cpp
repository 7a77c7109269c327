// The kill log: a kill is kept with its labels after the cgroup goes, for
// the retention time, and a count never goes back.
#include <gtest/gtest.h>

#include "exporter/kills.h"

namespace cgmem::exporter {
namespace {

constexpr uint64_t kS = 1'000'000'000;

watch::Row row(uint64_t id, uint64_t kills, watch::State state = watch::State::oom_killed) {
  watch::Row r;
  r.id = id;
  r.state = state;
  r.sample.local.oom_kill = kills;
  return r;
}

TEST(KillLog, KeepsAKillAfterTheCgroupIsGoneForTheRetention) {
  KillLog log;
  log.observe(row(7, 0, watch::State::ok), "cgroup=\"/quiet\"", 1 * kS);
  EXPECT_EQ(log.size(), 0u);  // no kill, no record
  log.observe(row(9, 1), "cgroup=\"/victim\"", 1 * kS);
  log.observe(row(9, 0, watch::State::gone), "", 2 * kS);
  log.expire(3 * kS, 10 * kS);
  std::vector<KillItem> items;
  log.items(items);
  ASSERT_EQ(items.size(), 1u);
  EXPECT_EQ(*items[0].labels, "cgroup=\"/victim\"");
  EXPECT_EQ(items[0].kills, 1u);
  log.expire(12 * kS + 1, 10 * kS);
  EXPECT_EQ(log.size(), 0u);
}

TEST(KillLog, ACountNeverGoesBackAndALiveCgroupIsNotExpired) {
  KillLog log;
  log.observe(row(9, 3), "cgroup=\"/a\"", 1 * kS);
  log.observe(row(9, 2), "cgroup=\"/a\"", 2 * kS);  // an older read arriving late
  log.expire(100 * kS, 10 * kS);
  std::vector<KillItem> items;
  log.items(items);
  ASSERT_EQ(items.size(), 1u);
  EXPECT_EQ(items[0].kills, 3u);
}

}  // namespace
}  // namespace cgmem::exporter
