// A steady-state scan allocates nothing: this binary replaces the global
// operator new with one that counts calls (tests/support), builds a tree of
// 50 cgroups with the real throttled cgroup's files, and scans it 100 times
// while the counters of half of them move (high rising, PSI rising: the scan
// reads tasks and computes forecasts), rewriting the files in place between
// scans, with and without quiet reads.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <unistd.h>

#include <fmt/format.h>
#include <vector>

#include "support/count_allocations.h"
#include "support/temp_dir.h"
#include "tree.h"
#include "watch/scanner.h"

namespace cgmem::watch {
namespace {

TEST(NoAllocation, TheCounterSeesAnAllocation) {
  size_t before = cgmem::testing::allocation_count();
  auto* p = new std::string(100, 'x');
  delete p;
  EXPECT_GT(cgmem::testing::allocation_count() - before, 0u);
}

// Half the cgroups are throttled (memory.events and .local rising, PSI
// rising), half quiet; `full_read_every_ns` 0 reads every file at every
// scan, else the quiet half is read quietly and, once per period, in full.
void steady_state_allocates_nothing(uint64_t full_read_every_ns) {
  cgmem::testing::TempDir tmp;
  std::string root = tmp.path() + "/root";
  std::vector<int> events, local, pressure;
  for (int i = 0; i < 50; ++i) {
    std::string dir = fmt::format("{}/g{}/c{}", root, i % 5, i);
    testing::make_cgroup(dir);
    if (i % 2) continue;
    events.push_back(::open((dir + "/memory.events").c_str(), O_WRONLY | O_CLOEXEC));
    local.push_back(::open((dir + "/memory.events.local").c_str(), O_WRONLY | O_CLOEXEC));
    pressure.push_back(::open((dir + "/memory.pressure").c_str(), O_WRONLY | O_CLOEXEC));
  }
  std::string proc = testing::make_proc(tmp.path() + "/proc");
  auto scanner = Scanner::open(
      {.root = root, .kernel = {.hz = 250}, .proc_root = proc, .full_read_every_ns = full_read_every_ns});
  ASSERT_TRUE(scanner);
  Scanner& s = **scanner;
  constexpr uint64_t kSecond = 1000000000;
  ASSERT_TRUE(s.scan(kSecond));
  ASSERT_TRUE(s.scan(2 * kSecond));  // every cgroup has a previous sample now

  size_t throttled = 0, quiet = 0;
  size_t before = cgmem::testing::allocation_count();
  for (uint64_t tick = 3; tick < 103; ++tick) {
    char text[256];
    auto e = fmt::format_to_n(text, sizeof text,
                              "low 0\nhigh {}\nmax 0\noom 0\noom_kill 0\noom_group_kill 0\n", 309 + tick * 340);
    auto p = fmt::format_to_n(text + 128, 128,
                              "some avg10=90.00 avg60=1.00 avg300=1.00 total={}\n"
                              "full avg10=90.00 avg60=1.00 avg300=1.00 total={}\n",
                              6027841 + tick * 980000, 6027841 + tick * 980000);
    for (size_t i = 0; i < events.size(); ++i) {
      testing::rewrite(events[i], text, size_t(e.out - text));
      testing::rewrite(local[i], text, size_t(e.out - text));
      testing::rewrite(pressure[i], text + 128, size_t(p.out - (text + 128)));
    }
    auto rows = s.scan(tick * kSecond);
    ASSERT_TRUE(rows);
    for (const auto& row : *rows) throttled += row.state == State::throttled;
    quiet += s.stats().quiet;
  }
  size_t allocations = cgmem::testing::allocation_count() - before;
  for (auto* fds : {&events, &local, &pressure})
    for (int fd : *fds) ::close(fd);
  EXPECT_EQ(throttled, 25u * 100u);  // the scans did the whole job
  if (full_read_every_ns) EXPECT_GT(quiet, 25u * 90u);  // the quiet half, but for its refreshes
  else EXPECT_EQ(quiet, 0u);
  EXPECT_EQ(allocations, 0u);
}

TEST(NoAllocation, SteadyStateScansAllocateNothing) { steady_state_allocates_nothing(0); }

TEST(NoAllocation, SteadyStateQuietScansAllocateNothing) { steady_state_allocates_nothing(30 * 1000000000ull); }

}  // namespace
}  // namespace cgmem::watch
