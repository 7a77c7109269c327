// The cgroupfs actor on a fixture tree (a plain directory, not cgroupfs):
// every re-check is made, nothing is ever written there, and each refusal
// says why.
#include "guard/act.h"

#include <gtest/gtest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include "common/file.h"
#include "rows.h"
#include "support/temp_dir.h"
#include "watch/tree.h"

namespace cgmem::guard {
namespace {

namespace fs = std::filesystem;

struct Fixture {
  cgmem::testing::TempDir tmp;
  std::string root = tmp.path() + "/root";
  std::string cg = root + "/jobs/leak";
  Policy policy;
  watch::Row row;

  Fixture() {
    watch::testing::make_cgroup(cg);
    struct stat st {};
    ::stat(cg.c_str(), &st);
    row.path = "/jobs/leak";
    row.id = st.st_ino;
    policy.rules.push_back(Rule{.name = "r", .action = Action::kill});
  }
  Decision kill() {
    Decision d{.rule = &policy.rules[0], .verb = Verb::kill, .row = &row};
    d.evidence.throttled_s = 30;
    return d;
  }
  std::string read(const char* file) { return *read_file(cg + "/" + file, "read"); }
};

TEST(Act, ReChecksThenRefusesToWriteOutsideCgroupfs) {
  Fixture f;
  std::string kill_before = f.read("cgroup.kill"), high_before = f.read("memory.high");
  ActResult o = CgroupActor(f.root).act(f.kill());
  EXPECT_FALSE(o.acted);
  EXPECT_EQ(o.current, 34140160u);  // the fresh read: over memory.high, so it went on to kill
  EXPECT_EQ(o.high, Limit::of(30195712));
  EXPECT_NE(o.result.find("error: kill every process"), std::string::npos) << o.result;
  EXPECT_NE(o.result.find("cgroup2"), std::string::npos) << o.result;
  Decision raise = f.kill();
  raise.verb = Verb::raise_high;
  raise.expected_high = Limit::of(30195712);
  raise.new_high = Limit::of(32 << 20);
  o = CgroupActor(f.root).act(raise);
  EXPECT_FALSE(o.acted);
  EXPECT_NE(o.result.find("error: "), std::string::npos) << o.result;
  EXPECT_EQ(f.read("cgroup.kill"), kill_before);
  EXPECT_EQ(f.read("memory.high"), high_before);
}

TEST(Act, NotOverMemoryHighNowIsNotKilled) {
  Fixture f;
  (void)write_file(f.cg + "/memory.current", "1048576\n");
  ActResult o = CgroupActor(f.root).act(f.kill());
  EXPECT_FALSE(o.acted);
  EXPECT_EQ(o.result, "not over memory.high now (1MiB of 28.8MiB): not killed");
}

TEST(Act, AMemoryHighChangedSinceTheScanIsNotOverwritten) {
  Fixture f;
  Decision d = f.kill();
  d.verb = Verb::raise_high;
  d.expected_high = Limit::of(16 << 20);
  d.new_high = Limit::of(20 << 20);
  ActResult o = CgroupActor(f.root).act(d);
  EXPECT_FALSE(o.acted);
  EXPECT_EQ(o.result, "memory.high reads 28.8MiB now, not the 16MiB the decision was made on: not written");
}

TEST(Act, VanishedReplacedAndTheRootAreNotActedOn) {
  Fixture f;
  Decision d = f.kill();
  f.row.id += 1;
  EXPECT_EQ(CgroupActor(f.root).act(d).result, "replaced: a new cgroup has this name now: not acted");
  fs::remove_all(f.cg);
  EXPECT_EQ(CgroupActor(f.root).act(d).result, "vanished");
  f.row.path = "/";
  EXPECT_EQ(CgroupActor(f.root).act(d).result, "error: refused to act on '/' (the root or outside it)");
}

}  // namespace
}  // namespace cgmem::guard

namespace cgmem::guard {
namespace {

// Records how memory.high is written; the fixture stands for cgroupfs.
struct WriteModeEffects final : cgroup::Effects {
  std::vector<std::string> calls;
  int make_dir(int, const std::string&) override { return EPERM; }
  int remove_dir(const std::string&) override { return EPERM; }
  int write_file(int dir_fd, const char* name, std::string_view text) override {
    calls.push_back("write " + std::string(name));
    return replace(dir_fd, name, text);
  }
  int write_file_nonblocking(int dir_fd, const char* name, std::string_view text) override {
    calls.push_back("write O_NONBLOCK " + std::string(name));
    return replace(dir_fd, name, text);
  }
  int send_signal(pid_t, int) override { return EPERM; }
  bool on_cgroupfs(int) override { return true; }
  static int replace(int dir_fd, const char* name, std::string_view text) {
    int fd = ::openat(dir_fd, name, O_WRONLY | O_TRUNC);
    if (fd < 0) return errno;
    (void)!::write(fd, text.data(), text.size());
    ::close(fd);
    return 0;
  }
};

Decision raise_of(Fixture& f) {
  Decision d = f.kill();
  d.verb = Verb::raise_high;
  d.expected_high = Limit::of(30195712);
  d.new_high = Limit::of(32 << 20);
  return d;
}

TEST(ActWriteMode, On616MemoryHighIsWrittenWithONonblock) {
  Fixture f;
  WriteModeEffects effects;
  ActResult o = CgroupActor(f.root, model::rules_for({6, 16}), effects).act(raise_of(f));
  EXPECT_TRUE(o.acted) << o.result;
  EXPECT_EQ(effects.calls, std::vector<std::string>{"write O_NONBLOCK memory.high"});
  EXPECT_EQ(o.result, "memory.high 28.8MiB -> 32MiB");
  EXPECT_EQ(o.write_mode, "wrote memory.high with O_NONBLOCK (no synchronous reclaim, 6.16+)");
  EXPECT_EQ(f.read("memory.high"), "33554432");
}

TEST(ActWriteMode, On612ItCannotAndSaysSo) {
  Fixture f;
  WriteModeEffects effects;
  ActResult o = CgroupActor(f.root, model::rules_for({6, 12}, 7), effects).act(raise_of(f));
  EXPECT_TRUE(o.acted) << o.result;
  EXPECT_EQ(effects.calls, std::vector<std::string>{"write memory.high"});
  EXPECT_EQ(o.write_mode,
            "wrote memory.high without O_NONBLOCK: 6.12 reclaims down to a lowered memory.high in the writer "
            "(O_NONBLOCK from 6.16)");
}

TEST(ActWriteMode, TheRealEffectsOpenWithONonblock) {
  // A plain file takes O_NONBLOCK like any other; the write lands.
  cgmem::testing::TempDir tmp;
  (void)write_file(tmp.path() + "/memory.high", "max\n");
  int dir = ::open(tmp.path().c_str(), O_RDONLY | O_DIRECTORY);
  ASSERT_GE(dir, 0);
  EXPECT_EQ(cgroup::system_effects().write_file_nonblocking(dir, "memory.high", "1048576"), 0);
  ::close(dir);
  EXPECT_EQ(*read_file(tmp.path() + "/memory.high", "read"), "1048576");
}

}  // namespace
}  // namespace cgmem::guard
