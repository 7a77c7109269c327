// watch::parse_into, file by file: the scan's fields agree with cgroup/'s
// checked parsers on every file of a throttled cgroup read on the VM's
// kernel, and text that is not what the kernel writes sets the file's
// malformed bit and leaves the fields as they were.
#include <gtest/gtest.h>

#include <filesystem>

#include "cgroup/flat_keyed.h"
#include "cgroup/pressure.h"
#include "cgroup/single_value.h"
#include "support/fixture.h"
#include "watch/sample.h"

namespace cgmem::watch {
namespace {

const std::string kRun = "cgroup-v2-6.12-throttled/lab-run1/";

// The sample from every one of the thirteen files the fixture has.
Sample fixture_sample() {
  Sample s;
  for (size_t i = 0; i < kFileCount; ++i) {
    std::string path = testing::fixture_path(kRun + kFileNames[i]);
    if (std::filesystem::exists(path)) parse_into(s, File(i), testing::fixture(kRun + kFileNames[i]));
  }
  return s;
}

TEST(WatchSample, EveryFixtureFileParsesAndNoneIsMalformed) {
  Sample s = fixture_sample();
  EXPECT_EQ(s.malformed, 0u);
  for (File f : {File::current, File::high, File::max, File::events, File::events_local, File::stat,
                 File::memory_pressure, File::io_pressure, File::swap_current, File::swap_max,
                 File::swap_high, File::swap_events})
    EXPECT_TRUE(s.has(f)) << kFileNames[size_t(f)];
  EXPECT_FALSE(s.has(File::zswap_current));  // the fixture has no memory.zswap.current
}

TEST(WatchSample, AgreesWithTheCheckedParsers) {
  Sample s = fixture_sample();
  EXPECT_EQ(s.current, 34140160u);
  EXPECT_EQ(s.high, Limit::of(30195712));
  EXPECT_EQ(s.max, Limit::of(67108864));
  EXPECT_EQ(s.swap_max, Limit::max());

  auto events = cgroup::parse_memory_events(testing::fixture(kRun + "memory.events.local"));
  ASSERT_TRUE(events);
  EXPECT_EQ(s.local.high, *events->high);
  EXPECT_EQ(s.local.high, 309u);
  EXPECT_EQ(s.local.oom_kill, *events->oom_kill);

  auto stat = cgroup::parse_memory_stat(testing::fixture(kRun + "memory.stat"));
  ASSERT_TRUE(stat);
  EXPECT_EQ(s.anon, *stat->anon);
  EXPECT_EQ(s.file, *stat->file);
  EXPECT_EQ(s.inactive_file, *stat->inactive_file);
  EXPECT_EQ(s.pgfault, *stat->pgfault);
  EXPECT_EQ(s.pgmajfault, *stat->pgmajfault);
  EXPECT_EQ(s.pgscan, *stat->pgscan);
  EXPECT_EQ(s.pgsteal, *stat->pgsteal);
  EXPECT_EQ(s.refault_anon, *stat->workingset_refault_anon);
  EXPECT_EQ(s.refault_file, *stat->workingset_refault_file);
  EXPECT_EQ(s.stat_keys, 0u);  // 6.12 prints no pswpin/pswpout

  auto pressure = cgroup::parse_pressure(testing::fixture(kRun + "memory.pressure"), "memory.pressure");
  ASSERT_TRUE(pressure);
  EXPECT_DOUBLE_EQ(s.memory.some_avg10, pressure->some->avg10);
  EXPECT_EQ(s.memory.some_usec, pressure->some->total_usec);
  EXPECT_EQ(s.memory.full_usec, pressure->full->total_usec);
}

TEST(WatchSample, TextTheKernelDoesNotWriteIsMalformedAndChangesNothing) {
  struct Case {
    File file;
    const char* text;
  };
  for (const Case& c : {Case{File::current, "-1\n"}, Case{File::current, "18446744073709551616\n"},
                        Case{File::high, "4M\n"}, Case{File::max, ""}, Case{File::events, "hgh 1\n"},
                        Case{File::events_local, "high lots\n"}, Case{File::stat, "anon\nfile x\n"},
                        Case{File::memory_pressure, "some avg10=1\n"},
                        Case{File::io_pressure, "many avg10=0.00 avg60=0.00 avg300=0.00 total=1\n"},
                        Case{File::swap_events, "\n\n"}}) {
    Sample s = fixture_sample();
    Sample before = s;
    parse_into(s, c.file, c.text);
    SCOPED_TRACE(kFileNames[size_t(c.file)]);
    EXPECT_TRUE(s.malformed & bit(c.file));
    EXPECT_EQ(s.current, before.current);
    EXPECT_EQ(s.high, before.high);
    EXPECT_EQ(s.max, before.max);
    EXPECT_EQ(s.events.high, before.events.high);
    EXPECT_EQ(s.local.high, before.local.high);
    EXPECT_EQ(s.anon, before.anon);
    EXPECT_EQ(s.memory.some_usec, before.memory.some_usec);
    EXPECT_EQ(s.io.some_usec, before.io.some_usec);
    EXPECT_EQ(s.swap_events.high, before.swap_events.high);
  }
}

TEST(WatchSample, AMemoryStatLineWithABadValueKeepsTheOthers) {
  Sample s;
  parse_into(s, File::stat, "anon 4096\nfile lots\npgscan 7\n");
  EXPECT_TRUE(s.has(File::stat));
  EXPECT_EQ(s.anon, 4096u);
  EXPECT_EQ(s.file, 0u);
  EXPECT_EQ(s.pgscan, 7u);
}

}  // namespace
}  // namespace cgmem::watch
