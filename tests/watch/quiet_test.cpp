// Quiet reads and the descriptor budget: a cgroup whose memory.current and
// memory.events did not move carries its other files from its last full
// read, whose time their rates span; it is read in full when a sentinel
// moves and when its refresh is due; and however small the budget, every
// cgroup is read whole.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "support/temp_dir.h"
#include "tree.h"
#include "watch/render.h"
#include "watch/scanner.h"

namespace cgmem::watch {
namespace {

namespace fs = std::filesystem;
using cgmem::testing::TempDir;
using testing::make_cgroup;

constexpr uint64_t kSecond = 1000000000;

void spit(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

// The fixture's memory.stat with pgsteal set to PAGES.
void set_pgsteal(const std::string& dir, uint64_t pages) {
  std::ifstream in(dir + "/memory.stat");
  std::string line, text;
  while (std::getline(in, line)) text += (line.starts_with("pgsteal ") ? "pgsteal " + std::to_string(pages) : line) + "\n";
  in.close();
  spit(dir + "/memory.stat", text);
}

std::unique_ptr<Scanner> open_quiet(const std::string& root, uint64_t full_read_every_ns, size_t max_open_files = 0) {
  auto s = Scanner::open({.root = root, .proc_root = "/nonexistent", .full_read_every_ns = full_read_every_ns,
                          .max_open_files = max_open_files});
  EXPECT_TRUE(s) << (s ? "" : s.error().message());
  return s ? std::move(*s) : nullptr;
}

TEST(QuietRead, CarriesTheOtherFilesUntilASentinelMoves) {
  TempDir tmp;
  std::string a = tmp.path() + "/root/a";
  make_cgroup(a);
  auto s = open_quiet(tmp.path() + "/root", 3600 * kSecond);
  ASSERT_TRUE(s->scan(1 * kSecond));
  ASSERT_TRUE(s->scan(2 * kSecond));  // the first full read's refresh is still far

  set_pgsteal(a, 5096);  // memory.stat moves alone: not seen
  auto rows = s->scan(3 * kSecond);
  ASSERT_TRUE(rows);
  ASSERT_EQ(rows->size(), 1u);
  EXPECT_EQ((*rows)[0].sample.pgsteal, 4096u);
  EXPECT_EQ((*rows)[0].sample.carried_from_ns, 1 * kSecond);
  EXPECT_EQ((*rows)[0].sample.t_ns, 3 * kSecond);
  EXPECT_EQ(s->stats().quiet, 1u);
  EXPECT_EQ((*rows)[0].rates.pgsteal_per_s, 0.0);
  EXPECT_EQ(row_json((*rows)[0], 0)["carried_s"], 2.0);  // `cgmem watch --json` says so

  spit(a + "/memory.current", "34144256\n");  // a page more: read in full
  rows = s->scan(4 * kSecond);
  ASSERT_TRUE(rows);
  const Row& row = (*rows)[0];
  EXPECT_EQ(s->stats().quiet, 0u);
  EXPECT_EQ(row.sample.carried_from_ns, 0u);
  EXPECT_TRUE(row_json(row, 0)["carried_s"].is_null());
  EXPECT_EQ(row.sample.pgsteal, 5096u);
  // The sentinels' rates over the second since the last scan, memory.stat's
  // over the three since it was last read.
  EXPECT_DOUBLE_EQ(row.rates.dt_s, 1.0);
  EXPECT_DOUBLE_EQ(row.rates.growth_bytes_per_s, 4096.0);
  EXPECT_NEAR(row.rates.pgsteal_per_s, 1000.0 / 3, 1e-9);
}

TEST(QuietRead, MemoryEventsMovingIsAFullRead) {
  TempDir tmp;
  std::string a = tmp.path() + "/root/a";
  make_cgroup(a);
  auto s = open_quiet(tmp.path() + "/root", 3600 * kSecond);
  ASSERT_TRUE(s->scan(1 * kSecond));
  spit(a + "/memory.events", "low 0\nhigh 649\nmax 0\noom 0\noom_kill 0\noom_group_kill 0\n");
  spit(a + "/memory.events.local", "low 0\nhigh 649\nmax 0\noom 0\noom_kill 0\noom_group_kill 0\n");
  auto rows = s->scan(2 * kSecond);
  ASSERT_TRUE(rows);
  EXPECT_EQ(s->stats().quiet, 0u);
  EXPECT_EQ((*rows)[0].rates.rise.high, 340u);
  EXPECT_EQ((*rows)[0].state, State::throttled);
}

TEST(QuietRead, AQuietCgroupIsReadInFullOncePerPeriod) {
  TempDir tmp;
  std::string a = tmp.path() + "/root/a";
  make_cgroup(a);
  auto s = open_quiet(tmp.path() + "/root", 10 * kSecond);
  ASSERT_TRUE(s->scan(1 * kSecond));
  set_pgsteal(a, 5096);
  size_t full_reads = 0;
  uint64_t seen_at = 0;
  for (uint64_t t = 2; t <= 21; ++t) {
    auto rows = s->scan(t * kSecond);
    ASSERT_TRUE(rows);
    full_reads += s->stats().quiet == 0;
    if (!seen_at && (*rows)[0].sample.pgsteal == 5096) seen_at = t;
  }
  // The first refresh falls within one period of the first read, then one every period.
  EXPECT_GE(full_reads, 1u);
  EXPECT_LE(full_reads, 2u);
  EXPECT_GE(seen_at, 2u);
  EXPECT_LE(seen_at, 11u);
}

TEST(QuietRead, ZeroReadsEveryFileAtEveryScan) {
  TempDir tmp;
  std::string a = tmp.path() + "/root/a";
  make_cgroup(a);
  auto s = open_quiet(tmp.path() + "/root", 0);
  ASSERT_TRUE(s->scan(1 * kSecond));
  set_pgsteal(a, 5096);
  auto rows = s->scan(2 * kSecond);
  ASSERT_TRUE(rows);
  EXPECT_EQ(s->stats().quiet, 0u);
  EXPECT_EQ((*rows)[0].sample.pgsteal, 5096u);
  EXPECT_DOUBLE_EQ((*rows)[0].rates.pgsteal_per_s, 1000.0);
}

TEST(DescriptorBudget, SentinelsFirstAndEveryCgroupReadWhole) {
  TempDir tmp;
  make_cgroup(tmp.path() + "/root/p");
  for (int i = 0; i < 20; ++i) make_cgroup(tmp.path() + "/root/p/c" + std::to_string(i));
  // 256 kept free for directories found later: room for 50 files.
  auto s = open_quiet(tmp.path() + "/root", 0, 256 + 2 + 50);
  auto rows = s->scan(1 * kSecond);
  ASSERT_TRUE(rows);
  EXPECT_EQ(rows->size(), 21u);  // p and its 20 children
  for (const Row& row : *rows) {
    EXPECT_EQ(row.sample.current, 34140160u) << row.path;
    EXPECT_EQ(row.sample.pgsteal, 4096u) << row.path;
  }
  const ScanStats& st = s->stats();
  EXPECT_EQ(st.dirs_held, 2u);  // the root and p; the leaves' directories are not kept
  EXPECT_LE(st.dirs_held + st.files_held, 256u + 2 + 50);
  // Every cgroup's two sentinels (42) before any other file: 8 left for them.
  EXPECT_GE(st.files_held, 42u);
  EXPECT_EQ(st.preopened, 0u);
  rows = s->scan(2 * kSecond);
  ASSERT_TRUE(rows);
  EXPECT_EQ(rows->size(), 21u);
  for (const Row& row : *rows) EXPECT_EQ(row.sample.read, (*rows)[0].sample.read) << row.path;
}

TEST(DescriptorBudget, ALeafThatGetsAChildIsWalkedAgain) {
  TempDir tmp;
  make_cgroup(tmp.path() + "/root/a");
  auto s = open_quiet(tmp.path() + "/root", 30 * kSecond);
  ASSERT_TRUE(s->scan(1 * kSecond));
  EXPECT_EQ(s->stats().dirs_held, 1u);
  make_cgroup(tmp.path() + "/root/a/b");
  auto rows = s->scan(2 * kSecond);
  ASSERT_TRUE(rows);
  EXPECT_EQ(rows->size(), 2u);
  EXPECT_EQ(s->stats().dirs_held, 2u);  // a has a child now: its directory is held for the walk
}

TEST(DescriptorBudget, AChildOfAQuietLeafIsFoundAfterTheLeafsNextFullRead) {
  TempDir tmp;
  make_cgroup(tmp.path() + "/root/a");
  auto s = open_quiet(tmp.path() + "/root", 3600 * kSecond);
  ASSERT_TRUE(s->scan(1 * kSecond));
  ASSERT_TRUE(s->scan(2 * kSecond));
  EXPECT_EQ(s->stats().quiet, 1u);
  make_cgroup(tmp.path() + "/root/a/b");
  auto rows = s->scan(3 * kSecond);
  ASSERT_TRUE(rows);
  EXPECT_EQ(rows->size(), 1u);  // a is quiet: not looked into
  spit(tmp.path() + "/root/a/memory.current", "34144256\n");  // b's memory counts in a's
  ASSERT_TRUE(s->scan(4 * kSecond));
  rows = s->scan(5 * kSecond);
  ASSERT_TRUE(rows);
  EXPECT_EQ(rows->size(), 2u);
}

TEST(DescriptorBudget, AllFilesHeldWhenTheyFit) {
  TempDir tmp;
  for (int i = 0; i < 3; ++i) make_cgroup(tmp.path() + "/root/c" + std::to_string(i));
  auto s = open_quiet(tmp.path() + "/root", 30 * kSecond);
  ASSERT_TRUE(s->scan(1 * kSecond));
  ASSERT_TRUE(s->scan(2 * kSecond));
  EXPECT_EQ(s->stats().preopened, 3u);
  // Twelve files each: the fixture has no memory.zswap.current.
  EXPECT_EQ(s->stats().files_held, 3u * 12u);
}

}  // namespace
}  // namespace cgmem::watch
