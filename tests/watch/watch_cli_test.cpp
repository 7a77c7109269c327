// `cgmem watch` and `cgmem top --once` end to end, on directory trees with
// the files of a real throttled cgroup (the real kernel's cases are in
// watch_vm_test.cpp): output shapes, errors word for word, the snapshot
// round trip, and an event seen before the interval ends.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "support/run_cgmem.h"
#include "support/temp_dir.h"
#include "tree.h"

namespace {

using cgmem::testing::json_lines;
using cgmem::testing::run_cgmem;
using cgmem::testing::run_cgmem_split;
using cgmem::testing::run_shell;
using cgmem::testing::TempDir;
using nlohmann::json;

class WatchCli : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = tmp_.path() + "/root";
    cgmem::watch::testing::make_cgroup(root_ + "/a");
  }
  TempDir tmp_;
  std::string root_;
};

TEST_F(WatchCli, JsonIsOneLinePerCgroupPerInterval) {
  auto out = run_cgmem_split("watch --root " + root_ + " --json --count 2 --interval 100ms");
  ASSERT_EQ(out.code, 0) << out.err;
  auto rows = json_lines(out.out);
  ASSERT_EQ(rows.size(), 2u) << out.out;
  for (const auto& r : rows) {
    ASSERT_TRUE(r.is_object());
    EXPECT_EQ(r["cgroup"], "/a");
    EXPECT_EQ(r["state"], "near_high");  // 34140160 over 30195712, nothing moving
    EXPECT_EQ(r["memory"]["high"], 30195712);
    EXPECT_EQ(r["events"]["high"], 309);
    EXPECT_GT(r["rates"]["interval_s"].get<double>(), 0.05);
    EXPECT_EQ(r["forecast"]["regime"], "unknown");
  }
}

TEST_F(WatchCli, AnEventIsPrintedWhenItHappensNotAtTheInterval) {
  // memory.events changes 1 s into a 4 s interval: an OOM kill.
  std::string a = root_ + "/a";
  std::string events = "low 0\nhigh 309\nmax 35\noom 1\noom_kill 1\noom_group_kill 0\n";
  auto out = run_shell("(sleep 1; printf '" + events + "' > " + a + "/memory.events.local; printf '" +
                       events + "' > " + a + "/memory.events) & " + std::string(CGMEM_BINARY) +
                       " watch --root " + root_ + " --json --count 1 --interval 4s; wait");
  ASSERT_EQ(out.code, 0) << out.text;
  auto rows = json_lines(out.text);
  ASSERT_EQ(rows.size(), 2u) << out.text;
  EXPECT_EQ(rows[0]["event"], true);
  EXPECT_EQ(rows[0]["state"], "oom_killed");
  EXPECT_LT(rows[0]["rates"]["interval_s"].get<double>(), 3.0);  // seen about 1 s in
  EXPECT_EQ(rows[1]["event"], false);
  // The event read did not move the interval's baseline: the line covers the whole 4 s.
  EXPECT_GT(rows[1]["rates"]["interval_s"].get<double>(), 3.5);
}

TEST_F(WatchCli, ACgroupCreatedAndKilledBetweenScansIsOomKilled) {
  // Made elsewhere and moved in whole 1 s into the interval, already killed.
  std::string made = tmp_.path() + "/made";
  cgmem::watch::testing::make_cgroup(made);
  run_shell("printf 'low 0\\nhigh 0\\nmax 37\\noom 1\\noom_kill 1\\noom_group_kill 0\\n' > " + made +
            "/memory.events.local");
  auto out = run_shell("(sleep 1; mv " + made + " " + root_ + "/killed) & " + std::string(CGMEM_BINARY) +
                       " watch --root " + root_ + " --json --count 1 --interval 2s; wait");
  ASSERT_EQ(out.code, 0) << out.text;
  bool killed = false;
  for (const auto& r : json_lines(out.text))
    if (r["cgroup"] == "/killed") killed = r["state"] == "oom_killed" && r["rates"]["oom_kills"] == 1;
  EXPECT_TRUE(killed) << out.text;
}

TEST_F(WatchCli, TextShowsOnlyWhatIsNotOk) {
  cgmem::watch::testing::make_cgroup(root_ + "/fine");
  run_shell("echo 1048576 > " + root_ + "/fine/memory.current");
  auto out = run_cgmem("watch --root " + root_ + " --count 1 --interval 100ms");
  ASSERT_EQ(out.code, 0) << out.text;
  EXPECT_NE(out.text.find(" near_high  /a  memory.current 32.6MiB of memory.high 28.8MiB"), std::string::npos)
      << out.text;
  EXPECT_EQ(out.text.find("/fine"), std::string::npos) << out.text;
}

TEST_F(WatchCli, ASnapshotReplaysAsTheTreeWasRead) {
  std::string snap = tmp_.path() + "/snap";
  auto taken = run_cgmem_split("watch --root " + root_ + " --snapshot " + snap + " --interval 100ms --json");
  ASSERT_EQ(taken.code, 0) << taken.err;
  EXPECT_NE(taken.err.find("cgmem watch: wrote " + snap + " (1 cgroups, 2 samples"), std::string::npos);
  EXPECT_TRUE(std::filesystem::exists(snap + "/1/a/memory.stat"));
  EXPECT_TRUE(std::filesystem::exists(snap + "/0/a/cgmem.inode"));
  auto replayed = run_cgmem_split("watch --once " + snap + " --json");
  ASSERT_EQ(replayed.code, 0) << replayed.err;
  auto live = json_lines(taken.out), saved = json_lines(replayed.out);
  ASSERT_EQ(saved.size(), 1u);
  EXPECT_EQ(saved[0]["id"], live[0]["id"]);  // the live inode, not the copy's
  EXPECT_EQ(saved[0]["state"], live[0]["state"]);
  EXPECT_EQ(saved[0]["memory"], live[0]["memory"]);
  auto again = run_cgmem("watch --root " + root_ + " --snapshot " + snap);
  EXPECT_EQ(again.code, 2);
  EXPECT_EQ(again.text, "cgmem: error: write the snapshot: " + snap + " already exists (give a new directory)\n");
}

TEST_F(WatchCli, ReplayingWhatIsNotASnapshotSaysWhatToGive) {
  auto out = run_cgmem("watch --once " + root_);
  EXPECT_EQ(out.code, 1);
  EXPECT_EQ(out.text, "cgmem: error: read the snapshot: " + root_ +
                          "/snapshot.json: No such file or directory "
                          "(give a directory written by `cgmem watch --snapshot OUT`)\n");
}

TEST_F(WatchCli, ErrorsSayWhatWasTriedAndWhatToDo) {
  auto missing = run_cgmem("watch --root /nonexistent/cg --count 1");
  EXPECT_EQ(missing.code, 1);
  EXPECT_EQ(missing.text,
            "cgmem: error: open the cgroup tree to watch: /nonexistent/cg: No such file or directory "
            "(give --root a cgroup2 directory you can read; `cgmem host` shows the mount)\n");
  auto regex = run_cgmem("watch --root " + root_ + " --match '('");
  EXPECT_EQ(regex.code, 2);
  EXPECT_NE(regex.text.find("cgmem: error: --match '(' is not a regular expression"), std::string::npos);
  auto interval = run_cgmem("watch --root " + root_ + " --interval soon");
  EXPECT_EQ(interval.code, 2);
  EXPECT_EQ(interval.text.rfind("cgmem: error: ", 0), 0u) << interval.text;
}

// std::regex overflowed the stack on both (SIGSEGV, no message).
TEST_F(WatchCli, AHostileMatchIsAnErrorOrAMatchNeverACrash) {
  auto huge = run_cgmem("watch --root " + root_ + " --count 1 --match " + std::string(100'000, 'a'));
  EXPECT_EQ(huge.code, 2);
  EXPECT_EQ(huge.text,
            "cgmem: error: --match 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa...' (100000 characters) is longer than "
            "16384 characters (match a shorter pattern, e.g. a common prefix ('^/kubepods') instead of every name)\n");
  std::string deep = cgmem::watch::testing::make_deep_tree(root_, 30'000);
  auto o = run_cgmem_split("watch --root " + root_ + " --json --count 1 --match '^/d.*$'");
  cgmem::watch::testing::remove_deep_tree(root_);
  ASSERT_EQ(o.code, 0) << o.err;
  auto rows = json_lines(o.out);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0]["cgroup"], deep);
}

TEST_F(WatchCli, TopOnceIsAPlainTableOf80Columns) {
  cgmem::watch::testing::make_cgroup(root_ + "/a/with/a/rather/long/path/below/it/that/does/not/fit");
  auto out = run_cgmem_split("top --once --root " + root_ + " --interval 100ms");
  ASSERT_EQ(out.code, 0) << out.err;
  std::istringstream in(out.out);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  ASSERT_EQ(lines.size(), 3u) << out.out;
  EXPECT_EQ(lines[0].rfind("CGROUP", 0), 0u);
  EXPECT_NE(lines[0].find("STATE      CURRENT   HIGH    MAX SLP/S SLEEP >MAX   PSI RFLT/"), std::string::npos)
      << lines[0];
  for (const auto& line : lines) {
    EXPECT_LE(line.size(), 80u) << line;
    EXPECT_EQ(line.find('\x1b'), std::string::npos) << "colour on a pipe: " << line;
  }
  EXPECT_EQ(lines[1].rfind("/a ", 0), 0u) << lines[1];  // as far over memory.high: by path
  EXPECT_NE(lines[2].find("..hat/does/not/fit near_high    32.6M  28.8M    64M     0  1.1s    - 48/48     0"), std::string::npos) << lines[2];
}

TEST_F(WatchCli, TopNeedsATerminalUnlessOnce) {
  auto out = run_cgmem("top --root " + root_ + " < /dev/null");
  EXPECT_EQ(out.code, 2);
  EXPECT_EQ(out.text,
            "cgmem: error: draw the live view: stdin and stdout must be a terminal (use `cgmem top --once` "
            "for a plain table, or `cgmem watch --json`)\n");
  EXPECT_EQ(run_cgmem("top --json --root " + root_).code, 2);
}

}  // namespace
