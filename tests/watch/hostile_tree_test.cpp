// What a tree handed to cgmem may hold, end to end: a FIFO, a symlink to
// /dev/zero, a directory or a too-long file in a control file's place, a
// cgroup.procs naming paths, a link where a cgroup was, a snapshot.json
// that lies, more cgroups than descriptors. Every command finishes (each
// runs under `timeout`, so a regression fails instead of hanging), writes
// nothing outside the place it was given, and says what it refused.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "support/run_cgmem.h"
#include "support/temp_dir.h"
#include "tree.h"

namespace {

namespace fs = std::filesystem;
using cgmem::testing::json_lines;
using cgmem::testing::Output;
using cgmem::testing::run_shell;
using cgmem::testing::TempDir;

constexpr int kTimedOut = 124;  // timeout(1)'s exit code

// cgmem ARGS under a 20 s timeout, stdout and stderr together.
Output cgmem_within(const std::string& args, const std::string& env = "") {
  return run_shell(env + "timeout 20 " + std::string(CGMEM_BINARY) + " " + args + " 2>&1");
}

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kAddressSanitizer = true;
#elif defined(__has_feature)
constexpr bool kAddressSanitizer = __has_feature(address_sanitizer);
#else
constexpr bool kAddressSanitizer = false;
#endif

// What stops a reader that reads without a bound at 1 GiB, not at the
// machine's limit: ulimit -v; under AddressSanitizer, whose shadow memory
// alone is larger than any such limit, its own largest allocation.
std::string at_most_a_gib() {
  return kAddressSanitizer ? "export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}max_allocation_size_mb=1024; "
                           : "ulimit -v 1048576; ";
}

void make_fifo(const std::string& path) {
  fs::remove(path);
  ASSERT_EQ(::mkfifo(path.c_str(), 0644), 0) << path;
}

class HostileTree : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = tmp_.path() + "/root";
    cgmem::watch::testing::make_cgroup(root_ + "/a");
    policy_ = tmp_.path() + "/p.toml";
    std::ofstream(policy_) << "[[rules]]\nname = \"all\"\nmatch = \"^/\"\naction = \"kill\"\nthrottled_for = \"1s\"\n";
  }
  // The saved snapshot of the VM, copied so a test can damage it.
  std::string snapshot() const { return tmp_.copy_fixture("watch-vm-6.12", "snap"); }
  TempDir tmp_;
  std::string root_, policy_;
};

TEST_F(HostileTree, AFifoInPlaceOfAControlFileHangsNoCommand) {
  for (const char* name : {"memory.current", "memory.stat", "cgroup.procs"}) {
    SCOPED_TRACE(name);
    std::string root = tmp_.path() + "/fifo-" + name;
    cgmem::watch::testing::make_cgroup(root + "/a");
    make_fifo(root + "/a/" + name);
    std::string snap = tmp_.dir() / (std::string("snap-of-") + name);
    auto watched = cgmem_within("watch --root " + root + " --json --count 1 --interval 100ms");
    EXPECT_EQ(watched.code, 0) << watched.text;
    auto exported = cgmem_within("exporter --once --interval 100ms --root " + root);
    EXPECT_EQ(exported.code, 0) << exported.text;
    auto guarded = cgmem_within("guard --policy " + policy_ + " --root " + root + " --json --count 1 --interval 100ms");
    EXPECT_EQ(guarded.code, 0) << guarded.text;
    auto top = cgmem_within("top --once --root " + root + " --interval 100ms");
    EXPECT_EQ(top.code, 0) << top.text;
    auto saved = cgmem_within("watch --root " + root + " --snapshot " + snap + " --interval 100ms");
    EXPECT_NE(saved.code, kTimedOut) << saved.text;
    if (std::string(name) != "memory.current") {  // no memory.current: no row, nothing to copy
      EXPECT_EQ(saved.code, 1) << saved.text;
      EXPECT_EQ(saved.text, "cgmem: error: read " + root + "/a/" + name + ": it is a FIFO, not a regular file\n");
      EXPECT_FALSE(fs::exists(snap));
    }
  }
}

TEST_F(HostileTree, AFifoInASavedSnapshotHangsNoReplay) {
  for (const char* name : {"snapshot.json", "1/cgmem/throttled/memory.current", "1/cgmem/throttled/memory.stat",
                           "1/cgmem/throttled/cgroup.procs", "1/cgmem/throttled/cgmem.inode"}) {
    SCOPED_TRACE(name);
    std::string snap = snapshot();
    make_fifo(snap + "/" + name);
    auto once = cgmem_within("watch --once " + snap + " --json");
    auto top = cgmem_within("top --once --from " + snap);
    EXPECT_NE(once.code, kTimedOut) << once.text;
    EXPECT_NE(top.code, kTimedOut) << top.text;
    if (std::string(name) == "snapshot.json") {
      EXPECT_EQ(once.code, 1);
      EXPECT_EQ(once.text, "cgmem: error: the snapshot is a FIFO: " + snap +
                               "/snapshot.json (give a directory written by `cgmem watch --snapshot OUT`)\n");
    } else {
      EXPECT_EQ(once.code, 0) << once.text;
    }
    fs::remove_all(snap);
  }
}

TEST_F(HostileTree, DevZeroAsSnapshotJsonOrAsAControlFileIsRefusedNotReadForever) {
  std::string snap = snapshot();
  fs::remove(snap + "/snapshot.json");
  fs::create_symlink("/dev/zero", snap + "/snapshot.json");
  auto once = cgmem_within("watch --once " + snap, at_most_a_gib());
  EXPECT_EQ(once.code, 1);
  EXPECT_EQ(once.text, "cgmem: error: the snapshot is a character device: " + snap +
                           "/snapshot.json (give a directory written by `cgmem watch --snapshot OUT`)\n");
  for (const char* name : {"memory.stat", "cgroup.procs", "memory.current"}) {
    fs::remove(root_ + "/a/" + name);
    fs::create_symlink("/dev/zero", root_ + "/a/" + name);
  }
  std::string out = tmp_.path() + "/out";
  auto saved = cgmem_within("watch --root " + root_ + " --snapshot " + out + " --interval 100ms", at_most_a_gib());
  EXPECT_EQ(saved.code, 0) << saved.text;  // a symlink is never followed: nothing is read through it
  EXPECT_FALSE(fs::exists(out + "/0/a/memory.stat"));
}

TEST_F(HostileTree, AControlFileLargerThanAScanReadsIsNotCopiedCut) {
  std::ofstream(root_ + "/a/memory.stat", std::ios::app) << std::string(20000, '#') << "\n";
  std::string out = tmp_.path() + "/out";
  auto saved = cgmem_within("watch --root " + root_ + " --snapshot " + out + " --interval 100ms");
  EXPECT_EQ(saved.code, 1);
  EXPECT_EQ(saved.text, "cgmem: error: read " + root_ +
                            "/a/memory.stat: it is larger than 16384 bytes, more than a control file holds\n");
  EXPECT_FALSE(fs::exists(out));
}

TEST_F(HostileTree, CgroupProcsNamesOnlyPidsNeverPaths) {
  std::string escaped = tmp_.path() + "/escaped";
  std::ofstream(root_ + "/a/cgroup.procs") << "1\n../../../escaped\n" << escaped << "\n+1\n 1\n007\n99999999\n";
  std::string out = tmp_.path() + "/out";
  auto saved = cgmem_within("watch --root " + root_ + " --snapshot " + out + " --interval 100ms");
  ASSERT_EQ(saved.code, 0) << saved.text;
  EXPECT_FALSE(fs::exists(escaped));
  for (const auto& sample : {"0", "1"}) {
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(out + "/" + sample + "/proc"))
      names.push_back(entry.path().filename().string());
    for (const auto& name : names) EXPECT_EQ(name.find_first_not_of("0123456789"), std::string::npos) << name;
  }
}

TEST_F(HostileTree, ALinkWhereACgroupWasIsNeverFollowed) {
  // A directory outside the tree that looks like a cgroup.
  std::string outside = tmp_.path() + "/outside";
  cgmem::watch::testing::make_cgroup(outside);
  fs::create_symlink(outside, root_ + "/link");
  std::string out = tmp_.path() + "/out";
  auto saved = cgmem_within("watch --root " + root_ + " --snapshot " + out + " --interval 100ms");
  ASSERT_EQ(saved.code, 0) << saved.text;
  EXPECT_FALSE(fs::exists(out + "/0/link"));
  // In a saved tree the second read's cgroup is a link out of it: not read there.
  std::string snap = snapshot();
  fs::rename(snap + "/1/cgmem/throttled", tmp_.path() + "/throttled-elsewhere");
  fs::create_symlink(tmp_.path() + "/throttled-elsewhere", snap + "/1/cgmem/throttled");
  auto once = cgmem_within("watch --once " + snap + " --json");
  ASSERT_EQ(once.code, 0) << once.text;
  size_t rows = 0;
  for (const auto& row : json_lines(once.text)) {
    ++rows;
    if (row["cgroup"] == "/cgmem/throttled") {
      EXPECT_EQ(row["state"], "gone") << row.dump();
    }
  }
  EXPECT_EQ(rows, 5u) << once.text;  // the snapshot's six cgroups less the link
  // The samples themselves are directories of the snapshot, not links.
  fs::rename(snap + "/1", snap + "/one");
  fs::create_symlink(snap + "/one", snap + "/1");
  auto linked = cgmem_within("watch --once " + snap);
  EXPECT_EQ(linked.code, 1);
  EXPECT_EQ(linked.text, "cgmem: error: read the snapshot: " + snap +
                             "/1 is a symbolic link, not a directory (the snapshot is damaged; take a new one with "
                             "`cgmem watch --snapshot OUT`)\n");
}

TEST_F(HostileTree, AnEmptyDirectoryValueIsAnErrorNotALiveWatch) {
  for (std::string flags : {"watch --once '' --count 1", "watch --snapshot '' --count 1", "top --once --from ''"}) {
    auto out = cgmem_within(flags + " --root " + root_);
    std::string flag = flags.find("--from") != std::string::npos   ? "--from"
                       : flags.find("--once") != std::string::npos ? "--once"
                                                                   : "--snapshot";
    EXPECT_EQ(out.code, 2) << flags << ": " << out.text;
    EXPECT_EQ(out.text, "cgmem: error: " + flag + " needs a directory\n") << flags;
  }
}

TEST_F(HostileTree, SnapshotJsonHzAndPageSizeAreCheckedAsMetaJsonIs) {
  struct Case {
    const char* key;
    const char* value;
    const char* says;
  };
  for (const Case& c : {Case{"hz", "0", "hz is 0, not a CONFIG_HZ (10 to 10000)"},
                        Case{"hz", "1", "hz is 1, not a CONFIG_HZ (10 to 10000)"},
                        Case{"hz", "1180591620717411303424", "hz is 1.1805916207174113e+21, not a CONFIG_HZ (10 to 10000)"},
                        Case{"hz", "4294967546", "hz is 4294967546, not a CONFIG_HZ (10 to 10000)"},
                        Case{"hz", "\"250\"", "hz is \"250\", not a CONFIG_HZ (10 to 10000)"},
                        Case{"page_size", "3000", "page_size is 3000, not a page size (a power of two, 4096 to 2097152)"},
                        Case{"page_size", "6144", "page_size is 6144, not a page size (a power of two, 4096 to 2097152)"}}) {
    std::string snap = snapshot();
    auto j = nlohmann::json::parse(std::ifstream(snap + "/snapshot.json"));
    j[c.key] = nlohmann::json::parse(c.value);
    std::ofstream(snap + "/snapshot.json") << j.dump();
    auto out = cgmem_within("watch --once " + snap);
    EXPECT_EQ(out.code, 1);
    EXPECT_EQ(out.text, "cgmem: error: read the snapshot: " + std::string(c.says) + ": " + snap +
                            "/snapshot.json (the file is damaged; take a new one with `cgmem watch --snapshot OUT`)\n");
    fs::remove_all(snap);
  }
}

// A saved tree of more sibling cgroups than the open-file limit.
TEST_F(HostileTree, ASnapshotLargerThanTheDescriptorLimitReplaysWhole) {
  constexpr int kSiblings = 2000;
  std::string snap = tmp_.path() + "/wide";
  for (const char* sample : {"0", "1"}) {
    for (int i = 0; i < kSiblings; ++i) {
      std::string dir = snap + "/" + sample + "/cg" + std::to_string(i);
      fs::create_directories(dir);
      std::ofstream(dir + "/memory.current") << (1 << 20) << "\n";
      std::ofstream(dir + "/memory.max") << "max\n";
      std::ofstream(dir + "/cgmem.inode") << 1000 + i << "\n";
    }
  }
  std::ofstream(snap + "/snapshot.json")
      << R"({"schema": 1, "root": "/sys/fs/cgroup", "hz": 250, "page_size": 4096,
            "samples": [{"dir": "0", "t_ns": 1000000000, "unix_time": 1.0},
                        {"dir": "1", "t_ns": 2000000000, "unix_time": 2.0}]})";
  auto out = run_shell("ulimit -n 256 && timeout 60 " + std::string(CGMEM_BINARY) + " watch --once " + snap +
                       " --json 2>&1");
  ASSERT_EQ(out.code, 0) << out.text.substr(0, 2000);
  auto rows = json_lines(out.text);
  ASSERT_EQ(rows.size(), size_t(kSiblings));
  for (const auto& row : rows) {
    ASSERT_TRUE(row.is_object());
    EXPECT_NE(row["state"], "gone");
    EXPECT_EQ(row["memory"]["current"], 1 << 20);
  }
}

}  // namespace
