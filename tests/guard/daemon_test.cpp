// The guard's loop without a process: rows from a synthetic series, a
// recording Actor and a clock that jumps to each deadline. What it must
// never do (act in a dry run, act past the rate limit) and what it must
// always do (log every decision, stop when asked, scan once per interval).
#include "guard/daemon.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "feed.h"
#include "rows.h"

namespace cgmem::guard {
namespace {

using testing::kHigh;
using testing::policy;
using testing::Series;
using watch::State;

constexpr uint64_t kSecond = 1'000'000'000;

const char* kKillThrottled = R"(
[limits]
per_cgroup = "1s"
per_minute = 1

[[rules]]
name = "leaks"
match = "^/jobs/"
action = "kill"
throttled_for = "3s"
)";

class JumpingClock final : public Clock {
 public:
  uint64_t now_ns() override { return now; }
  void sleep_until(uint64_t deadline_ns, int) override {
    now = std::max(now, deadline_ns);
    ++sleeps;
  }
  uint64_t now = 0;
  unsigned sleeps = 0;
};

class RecordingActor final : public Actor {
 public:
  ActResult act(const Decision& d) override {
    acted_on.emplace_back(d.row->path);
    return {.acted = true, .result = "killed"};
  }
  std::vector<std::string> acted_on;
};

// Cgroups throttled from the first second on, a row each per scan.
struct ThrottledTree {
  std::vector<Series> series;
  std::vector<watch::Row> rows;
  unsigned scans = 0;

  explicit ThrottledTree(std::vector<std::string> paths) {
    for (auto& p : paths) series.push_back(Series{.path = p, .id = 42 + series.size()});
  }
  ScanFn scan() {
    return [this](uint64_t) -> Result<std::span<const watch::Row>> {
      ++scans;
      rows.clear();
      for (auto& s : series) rows.push_back(s.next(State::throttled, kHigh + scans * 4096, 17));
      return std::span<const watch::Row>(rows);
    };
  }
};

struct Logged {
  std::string path, result;
};

struct Harness {
  Policy p = policy(kKillThrottled);
  JumpingClock clock;
  RecordingActor actor;
  std::vector<Logged> lines;
  LogFn log() {
    return [this](const Decision& d, const ActResult& r) { lines.push_back({std::string(d.row->path), r.result}); };
  }
  Result<void> run(ThrottledTree& tree, DaemonOptions o, std::function<bool()> stopping = [] { return false; }) {
    Daemon daemon(p, {}, actor, clock, o);
    return daemon.run(tree.scan(), log(), stopping);
  }
};

TEST(GuardDaemon, ADryRunLogsEveryDecisionAndActsOnNothing) {
  Harness h;
  ThrottledTree tree({"/jobs/a"});
  ASSERT_TRUE(h.run(tree, {.act = false, .count = 10, .interval_ns = kSecond}));
  EXPECT_TRUE(h.actor.acted_on.empty());
  ASSERT_FALSE(h.lines.empty());
  for (const auto& l : h.lines) EXPECT_EQ(l.result, "dry run: would kill (--act to act)");
}

TEST(GuardDaemon, ActsWithinTheRateLimitAndLogsWhatItHeldBack) {
  Harness h;
  ThrottledTree tree({"/jobs/a", "/jobs/b"});
  ASSERT_TRUE(h.run(tree, {.act = true, .count = 5, .interval_ns = kSecond}));
  // Both fire on the same scan; per_minute = 1 lets one act.
  ASSERT_EQ(h.actor.acted_on.size(), 1u);
  ASSERT_GE(h.lines.size(), 2u);
  EXPECT_EQ(h.lines[0].result, "killed");
  EXPECT_EQ(h.lines[1].result, "rate limited: 1 actions in the last minute (limits.per_minute)");
}

TEST(GuardDaemon, ScansOnceForTheBaselineThenOncePerInterval) {
  Harness h;
  ThrottledTree tree({"/other/x"});  // no rule matches: nothing is decided
  ASSERT_TRUE(h.run(tree, {.act = true, .count = 4, .interval_ns = 2 * kSecond}));
  EXPECT_EQ(tree.scans, 5u);
  EXPECT_EQ(h.clock.now, 8 * kSecond);
  EXPECT_TRUE(h.lines.empty());
  EXPECT_TRUE(h.actor.acted_on.empty());
}

TEST(GuardDaemon, StopsWhenAskedWithoutAnotherScan) {
  Harness h;
  ThrottledTree tree({"/jobs/a"});
  ASSERT_TRUE(h.run(tree, {.act = true, .count = 0, .interval_ns = kSecond}, [&] { return tree.scans >= 3; }));
  EXPECT_EQ(tree.scans, 3u);
}

TEST(GuardDaemon, AFailedScanEndsTheLoopWithItsError) {
  Harness h;
  Daemon daemon(h.p, {}, h.actor, h.clock, {.act = true, .count = 3, .interval_ns = kSecond});
  unsigned scans = 0;
  auto failing = [&](uint64_t) -> Result<std::span<const watch::Row>> {
    if (++scans == 2) return fail("the root is gone", "/sys/fs/cgroup/jobs");
    return std::span<const watch::Row>();
  };
  auto ran = daemon.run(failing, h.log(), [] { return false; });
  ASSERT_FALSE(ran);
  EXPECT_EQ(ran.error().what, "the root is gone");
  EXPECT_EQ(scans, 2u);
}

}  // namespace
}  // namespace cgmem::guard
