// The scanner on directory trees: what it finds, how it follows a cgroup by
// its inode, what it reports as gone, and that it reads through the files
// of a real throttled cgroup (tests/fixtures/cgroup-v2-6.12-throttled).
#include <gtest/gtest.h>

#include <sys/stat.h>

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
using testing::make_proc;

constexpr uint64_t kSecond = 1000000000;

void spit(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

std::unique_ptr<Scanner> open_scanner(ScanOptions o) {
  auto s = Scanner::open(std::move(o));
  EXPECT_TRUE(s) << (s ? "" : s.error().message());
  return s ? std::move(*s) : nullptr;
}

const Row* find(std::span<const Row> rows, std::string_view path) {
  for (const auto& r : rows)
    if (r.path == path) return &r;
  return nullptr;
}

TEST(Scanner, FindsEveryCgroupWithMemoryAndSkipsTheRootWithout) {
  TempDir tmp;
  fs::create_directories(tmp.path() + "/root");
  make_cgroup(tmp.path() + "/root/a");
  make_cgroup(tmp.path() + "/root/a/b");
  make_cgroup(tmp.path() + "/root/c");
  fs::create_directories(tmp.path() + "/root/nomem");  // memory controller off: no memory.current
  auto s = open_scanner({.root = tmp.path() + "/root"});
  auto rows = s->scan(kSecond);
  ASSERT_TRUE(rows) << rows.error().message();
  ASSERT_EQ(rows->size(), 3u);
  const Row* a = find(*rows, "/a");
  ASSERT_TRUE(a && find(*rows, "/a/b") && find(*rows, "/c"));
  struct stat st{};
  ASSERT_EQ(::stat((tmp.path() + "/root/a").c_str(), &st), 0);
  EXPECT_EQ(a->id, st.st_ino);
  EXPECT_EQ(a->sample.current, 34140160u);
  EXPECT_EQ(a->sample.high.bytes(), 30195712u);
  EXPECT_EQ(a->sample.local.high, 309u);
  EXPECT_EQ(a->sample.memory.some_usec, 6027841u);
  EXPECT_EQ(a->sample.pgsteal, 4096u);
  // Every file but memory.zswap.current: Debian's 6.12 has no CONFIG_ZSWAP.
  EXPECT_EQ(a->sample.read, ((1u << kFileCount) - 1) & ~bit(File::zswap_current));
  EXPECT_TRUE(a->sample.swap_high.is_max());
  EXPECT_EQ(a->sample.swap_events.high, 0u);
  EXPECT_EQ(a->sample.stat_keys, 0u);  // no pswpin/pswpout before 6.13, no zswpin/zswpout without zswap
  EXPECT_EQ(a->state, State::near_high);  // first sample: levels only
  EXPECT_TRUE(a->reasons & kFirstSample);
  EXPECT_EQ(s->stats().cgroups, 5u);
  EXPECT_EQ(s->stats().reported, 3u);
}

TEST(Scanner, MaxRowsCapsTheCgroupsReadAndCountsTheRest) {
  TempDir tmp;
  for (const char* name : {"a", "b", "c"}) make_cgroup(tmp.path() + "/root/" + name);
  auto s = open_scanner({.root = tmp.path() + "/root", .max_rows = 2});
  auto rows = s->scan(kSecond);
  ASSERT_TRUE(rows);
  EXPECT_EQ(rows->size(), 2u);
  EXPECT_EQ(s->stats().reported, 2u);
  EXPECT_EQ(s->stats().dropped, 1u);
  EXPECT_TRUE((*rows)[0].sample.has(File::swap_max));
  EXPECT_TRUE((*rows)[0].sample.swap_max.is_max());
  // One of the two goes: the third takes its place at the next scan.
  std::string gone = tmp.path() + "/root" + std::string((*rows)[0].path);
  fs::remove_all(gone);
  ASSERT_TRUE(s->scan(2 * kSecond));  // reports it gone
  rows = s->scan(3 * kSecond);
  ASSERT_TRUE(rows);
  EXPECT_EQ(rows->size(), 2u);
  EXPECT_EQ(s->stats().dropped, 0u);
}

TEST(Scanner, RatesComeFromTheSameCgroupsPreviousSample) {
  TempDir tmp;
  make_cgroup(tmp.path() + "/root/a");
  std::string proc = make_proc(tmp.path() + "/proc");
  auto s = open_scanner({.root = tmp.path() + "/root", .kernel = {.hz = 250}, .proc_root = proc});
  ASSERT_TRUE(s->scan(kSecond));
  spit(tmp.path() + "/root/a/memory.events.local",
       "low 0\nhigh 649\nmax 0\noom 0\noom_kill 0\noom_group_kill 0\n");
  spit(tmp.path() + "/root/a/memory.pressure",
       "some avg10=90.00 avg60=10.49 avg300=2.26 total=7007841\n"
       "full avg10=90.00 avg60=10.49 avg300=2.26 total=7007841\n");
  auto rows = s->scan(2 * kSecond);
  ASSERT_TRUE(rows);
  ASSERT_EQ(rows->size(), 1u);
  const Row& a = (*rows)[0];
  EXPECT_DOUBLE_EQ(a.rates.dt_s, 1.0);
  EXPECT_EQ(a.rates.rise.high, 340u);
  EXPECT_DOUBLE_EQ(a.rates.sleeps_per_s, 20.0);
  EXPECT_NEAR(a.rates.memory_some, 0.98, 1e-9);
  EXPECT_EQ(a.state, State::throttled);
  ASSERT_TRUE(a.tasks.read);
  EXPECT_EQ(a.tasks.total, 1u);
  EXPECT_EQ(a.tasks.over_high, 1u);
  ASSERT_EQ(a.tasks.listed, 1u);
  EXPECT_EQ(a.tasks.d[0].pid, 158);
  EXPECT_EQ(a.tasks.d[0].comm_view(), "w");
  EXPECT_EQ(a.tasks.d[0].wchan_view(), "mem_cgroup_handle_over_high");
  EXPECT_TRUE(a.forecast.valid);
  EXPECT_GT(a.forecast.sleep_s, 0.0);
  auto text = describe(a);
  ASSERT_FALSE(text.empty());
  EXPECT_EQ(text[0], "high +340 in 1.00 s = 20.0 sleeps/s");
}

TEST(Scanner, ACgroupRemovedAndCreatedAgainUnderItsNameIsANewOne) {
  TempDir tmp;
  make_cgroup(tmp.path() + "/root/a");
  auto s = open_scanner({.root = tmp.path() + "/root"});
  auto first = s->scan(kSecond);
  ASSERT_TRUE(first && first->size() == 1);
  uint64_t old_id = (*first)[0].id;
  fs::remove_all(tmp.path() + "/root/a");
  make_cgroup(tmp.path() + "/root/keep-the-inode-busy");  // so "a" cannot get its inode back
  make_cgroup(tmp.path() + "/root/a");
  auto rows = s->scan(2 * kSecond);
  ASSERT_TRUE(rows);
  ASSERT_EQ(rows->size(), 3u);
  int gone = 0, fresh = 0;
  for (const auto& r : *rows) {
    if (r.path != "/a") continue;
    if (r.state == State::gone) {
      ++gone;
      EXPECT_EQ(r.id, old_id);
    } else {
      ++fresh;
      EXPECT_NE(r.id, old_id);
      EXPECT_FALSE(r.reasons & kFirstSample);  // born since the last scan: rates from zero
      EXPECT_DOUBLE_EQ(r.rates.dt_s, 1.0);
    }
  }
  EXPECT_EQ(gone, 1);
  EXPECT_EQ(fresh, 1);
  auto after = s->scan(3 * kSecond);  // gone is said once
  ASSERT_TRUE(after);
  EXPECT_EQ(after->size(), 2u);
}

TEST(Scanner, ACgroupCreatedAndKilledBetweenScansIsOomKilled) {
  TempDir tmp;
  make_cgroup(tmp.path() + "/root/a");
  auto s = open_scanner({.root = tmp.path() + "/root"});
  ASSERT_TRUE(s->scan(kSecond));
  make_cgroup(tmp.path() + "/root/killed");
  spit(tmp.path() + "/root/killed/memory.events.local",
       "low 0\nhigh 0\nmax 37\noom 1\noom_kill 1\noom_group_kill 0\n");
  auto rows = s->scan(3 * kSecond);
  ASSERT_TRUE(rows);
  const Row* killed = find(*rows, "/killed");
  ASSERT_TRUE(killed);
  EXPECT_EQ(killed->state, State::oom_killed);
  EXPECT_DOUBLE_EQ(killed->rates.dt_s, 2.0);
  EXPECT_EQ(killed->rates.rise.oom_kill, 1u);
  EXPECT_EQ(find(*rows, "/a")->state, State::near_high);  // there from the start: its own rates
}

TEST(Scanner, DepthAndMatchChooseTheRows) {
  TempDir tmp;
  make_cgroup(tmp.path() + "/root/a");
  make_cgroup(tmp.path() + "/root/a/b");
  make_cgroup(tmp.path() + "/root/a/b/c");
  make_cgroup(tmp.path() + "/root/x");
  auto shallow = open_scanner({.root = tmp.path() + "/root", .max_depth = 1});
  auto rows = shallow->scan(kSecond);
  ASSERT_TRUE(rows);
  EXPECT_EQ(rows->size(), 2u);
  auto matched = open_scanner({.root = tmp.path() + "/root", .match = *cgmem::Pattern::compile("/b", "--match")});
  rows = matched->scan(kSecond);
  ASSERT_TRUE(rows);
  ASSERT_EQ(rows->size(), 2u);  // /a/b and /a/b/c: the walk goes on below an unmatched /a
  EXPECT_TRUE(find(*rows, "/a/b") && find(*rows, "/a/b/c"));
}

// '^/.*$' against a path of 30,000 characters: std::regex recursed once per
// character and overflowed the stack (SIGSEGV); the path is built from
// nested directories, as a delegated user can.
TEST(Scanner, AMatchOnAPathOf30000CharactersNeitherCrashesNorHangs) {
  TempDir tmp;
  std::string root = tmp.path() + "/root";
  std::filesystem::create_directory(root);
  std::string deep = testing::make_deep_tree(root, 30'000);
  auto s = open_scanner({.root = root, .match = *cgmem::Pattern::compile("^/.*$", "--match")});
  auto rows = s->scan(kSecond);
  testing::remove_deep_tree(root);
  ASSERT_TRUE(rows);
  ASSERT_EQ(rows->size(), 1u);
  EXPECT_EQ(rows->front().path, deep);
  EXPECT_GE(deep.size(), 30'000u);
  // Far past PATH_MAX, and read all the same (its directory opened one name at a time).
  EXPECT_EQ(rows->front().sample.current, 4096u);
  EXPECT_EQ(rows->front().sample.unreadable, 0u);
}

// A --root tree may hold anything where a control file should be: the scan
// reads what is a regular file and leaves the rest unread, never blocking.
TEST(Scanner, ReadsOnlyRegularFilesOfAtMostItsBuffer) {
  TempDir tmp;
  std::string a = tmp.path() + "/root/a";
  make_cgroup(a);
  spit(a + "/memory.stat", "anon 4096\n" + std::string(kFileText, '#'));  // fills the buffer: may be longer
  fs::remove(a + "/memory.events");
  ASSERT_EQ(::mkfifo((a + "/memory.events").c_str(), 0644), 0);
  fs::remove(a + "/memory.high");
  fs::create_symlink(tmp.path() + "/elsewhere", a + "/memory.high");
  spit(tmp.path() + "/elsewhere", "4096\n");
  auto s = open_scanner({.root = tmp.path() + "/root"});
  auto rows = s->scan(kSecond);
  ASSERT_TRUE(rows);
  const Row* row = find(*rows, "/a");
  ASSERT_TRUE(row);
  EXPECT_TRUE(row->sample.has(File::current));
  EXPECT_FALSE(row->sample.has(File::stat));
  EXPECT_FALSE(row->sample.has(File::events));
  EXPECT_FALSE(row->sample.has(File::high));  // a symlink, never followed
}

TEST(Scanner, AMissingRootIsAnErrorThatSaysWhatToDo) {
  auto s = Scanner::open({.root = "/nonexistent/cgroup"});
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().message(),
            "open the cgroup tree to watch: /nonexistent/cgroup: No such file or directory "
            "(give --root a cgroup2 directory you can read; `cgmem host` shows the mount)");
}

TEST(Scanner, SavedIdentityReadsTheSnapshotsInodeFile) {
  TempDir tmp;
  make_cgroup(tmp.path() + "/root/a");
  spit(tmp.path() + "/root/cgmem.inode", "1\n");
  spit(tmp.path() + "/root/a/cgmem.inode", "4242\n");
  auto s = open_scanner({.root = tmp.path() + "/root", .identity = Identity::saved});
  auto rows = s->scan(kSecond);
  ASSERT_TRUE(rows && rows->size() == 1);
  EXPECT_EQ((*rows)[0].id, 4242u);
}

}  // namespace
}  // namespace cgmem::watch
