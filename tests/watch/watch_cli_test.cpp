// `cgmem watch` and `cgmem top --once` end to end, on directory trees with
// the files of a real throttled cgroup (the real kernel's cases are in
// watch_vm_test.cpp): output shapes, errors word for word, the snapshot
// round trip, and an event seen before the interval ends.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <algorithm>
#include <map>
#include <set>
#include <fstream>
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
    // The host's stock rule (this host's uname release; 6.12's text before 6.16).
    EXPECT_TRUE(r["forecast"]["regime_rule"] == "per page when any other cgroup charges on this CPU" ||
                r["forecast"]["regime_rule"] == "per page needs 7 or more other cgroups charging on this CPU")
        << r["forecast"];
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
  EXPECT_EQ(out.text, "cgmem: error: open the snapshot: " + root_ +
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

// Directory names with bytes that are not UTF-8 or that drive a terminal:
// every output stays valid (JSON parses, one line per row) and shows them
// escaped, and the other cgroups are still there.
class HostileNames : public WatchCli {
 protected:
  void SetUp() override {
    WatchCli::SetUp();
    for (const char* name : {"bad\xff", "clear\x1b[2J", "cr\rforged", "nl\n12:00:00 oom_killed /forged"})
      cgmem::watch::testing::make_cgroup(root_ + "/" + name);
  }
  static bool raw_control(const std::string& text) {
    for (char c : text)
      if ((c >= 0 && c < 0x20 && c != '\n') || c == 0x7f || c == '\xff') return true;
    return false;
  }
};

TEST_F(HostileNames, WatchJsonIsOneValidLinePerCgroup) {
  auto out = run_cgmem_split("watch --root " + root_ + " --json --count 1 --interval 100ms");
  ASSERT_EQ(out.code, 0) << out.err;
  auto rows = json_lines(out.out);
  ASSERT_EQ(rows.size(), 5u) << out.out;
  std::set<std::string> names;
  for (const auto& r : rows) names.insert(r.at("cgroup").get<std::string>());
  EXPECT_TRUE(names.contains("/a"));
  EXPECT_TRUE(names.contains("/bad\xef\xbf\xbd"));  // U+FFFD
  EXPECT_TRUE(names.contains("/clear\x1b[2J"));       // JSON escaped it as \u001b
  EXPECT_EQ(out.out.find('\x1b'), std::string::npos);
  EXPECT_EQ(out.out.find('\r'), std::string::npos);
}

TEST_F(HostileNames, WatchTextShowsNamesEscapedOneLineEach) {
  auto out = run_cgmem_split("watch --root " + root_ + " --all --count 1 --interval 100ms");
  ASSERT_EQ(out.code, 0) << out.err;
  EXPECT_FALSE(raw_control(out.out)) << out.out;
  EXPECT_EQ(std::count(out.out.begin(), out.out.end(), '\n'), 5) << out.out;
  EXPECT_NE(out.out.find(" /bad\\xff "), std::string::npos) << out.out;
  EXPECT_NE(out.out.find(" /clear\\x1b[2J "), std::string::npos) << out.out;
  EXPECT_NE(out.out.find(" /cr\\rforged "), std::string::npos) << out.out;
  EXPECT_NE(out.out.find(" /nl\\n12:00:00 oom_killed /forged "), std::string::npos) << out.out;
}

TEST_F(HostileNames, TopOnceTableAndJsonStayValid) {
  auto table = run_cgmem_split("top --once --root " + root_ + " --interval 100ms");
  ASSERT_EQ(table.code, 0) << table.err;
  EXPECT_FALSE(raw_control(table.out)) << table.out;
  EXPECT_EQ(std::count(table.out.begin(), table.out.end(), '\n'), 6) << table.out;  // header + 5
  EXPECT_NE(table.out.find("/clear\\x1b[2J "), std::string::npos) << table.out;
  auto json = run_cgmem_split("top --once --json --root " + root_ + " --interval 100ms");
  ASSERT_EQ(json.code, 0) << json.err;
  auto rows = json_lines(json.out);
  ASSERT_EQ(rows.size(), 5u) << json.out;
  for (const auto& r : rows) EXPECT_TRUE(r.is_object()) << json.out;
}

// memory.current, .high and .max that are no facts: the state is unknown,
// with the reason, and no value is made up.
TEST_F(WatchCli, UnreadableValuesAreUnknownNeverOk) {
  struct Case {
    const char* name;
    const char* file;
    const char* text;  // nullptr: a directory in the file's place
    const char* reason;
  };
  const Case cases[] = {
      {"garbage", "memory.current", "lots\n", "current_malformed"},
      {"empty", "memory.current", "", "current_malformed"},
      {"negative", "memory.current", "-4096\n", "current_malformed"},
      {"overflow", "memory.current", "184467440737095516160\n", "current_malformed"},
      {"dir", "memory.current", nullptr, "current_unreadable"},
      {"high", "memory.high", "30M\n", "high_malformed"},
      {"max", "memory.max", "-1\n", "max_malformed"},
  };
  for (const Case& c : cases) {
    std::string dir = root_ + "/" + c.name;
    cgmem::watch::testing::make_cgroup(dir);
    std::filesystem::remove(dir + "/" + c.file);
    if (c.text) std::ofstream(dir + "/" + c.file) << c.text;
    else std::filesystem::create_directory(dir + "/" + c.file);
  }
  auto out = run_cgmem_split("watch --root " + root_ + " --json --count 1 --interval 100ms");
  ASSERT_EQ(out.code, 0) << out.err;
  std::map<std::string, json> by_name;
  for (const auto& r : json_lines(out.out)) by_name[r.at("cgroup").get<std::string>()] = r;
  EXPECT_EQ(by_name["/a"]["state"], "near_high");
  for (const Case& c : cases) {
    const json& r = by_name[std::string("/") + c.name];
    EXPECT_EQ(r["state"], "unknown") << c.name << ": " << r.dump();
    EXPECT_EQ(r["reasons"], json::array({c.reason})) << c.name;
    EXPECT_EQ(r["forecast"], nullptr) << c.name;
    std::string field = std::string(c.file).substr(7);  // "current", "high", "max"
    EXPECT_EQ(r["memory"][field], nullptr) << c.name;
  }
  EXPECT_EQ(by_name["/high"]["memory"]["current"], 34140160);
  EXPECT_EQ(by_name["/high"]["evidence"], json::array({"memory.high is neither a byte count nor max"}));
  auto text = run_cgmem_split("watch --root " + root_ + " --count 1 --interval 100ms");
  EXPECT_NE(text.out.find("unknown    /garbage  memory.current is not a byte count"), std::string::npos) << text.out;
  auto table = run_cgmem_split("top --once --root " + root_ + " --interval 100ms");
  std::istringstream lines(table.out);
  for (std::string line; std::getline(lines, line);) {
    if (!line.starts_with("/garbage ")) continue;
    EXPECT_NE(line.find(" unknown          ? "), std::string::npos) << line;
  }
}

// A tree with no memory.current anywhere (a cgroup v1 or hybrid host's v2
// tree): the one-shot forms say so and exit kNoMemoryController (4).
TEST_F(WatchCli, ATreeWithoutMemoryCurrentSaysSoAndExits4) {
  std::string empty = tmp_.path() + "/v2-without-memory";
  std::filesystem::create_directories(empty + "/system.slice/cron.service");
  auto watch = run_cgmem_split("watch --root " + empty + " --json --count 1 --interval 100ms");
  EXPECT_EQ(watch.code, 4);
  std::string reason = "no cgroup under " + empty +
                       " has memory.current: the cgroup v2 memory controller is not enabled there";
  EXPECT_NE(watch.err.find("cgmem: error: watch: nothing to watch: " + reason), std::string::npos) << watch.err;
  auto lines = json_lines(watch.out);
  ASSERT_EQ(lines.size(), 1u) << watch.out;
  EXPECT_EQ(lines[0]["memory_controller_usable"], false);
  // (On a hybrid host the reason goes on: "; memory is bound to cgroup v1 (mounted at ...)".)
  EXPECT_EQ(lines[0]["reason"].get<std::string>().substr(0, reason.size()), reason);
  auto top = run_cgmem_split("top --once --root " + empty + " --interval 100ms");
  EXPECT_EQ(top.code, 4);
  EXPECT_NE(top.out.find("nothing to watch: " + reason), std::string::npos) << top.out;
  EXPECT_NE(top.err.find("cgmem: error: top: nothing to watch: "), std::string::npos) << top.err;
  EXPECT_EQ(run_cgmem_split("top --once --json --root " + empty + " --interval 100ms").code, 4);
  // --match leaving every cgroup out is no such case.
  auto matched = run_cgmem_split("watch --root " + root_ + " --json --count 1 --interval 100ms --match nothing");
  EXPECT_EQ(matched.code, 0) << matched.err;
  EXPECT_EQ(matched.out, "");
}

// This build machine itself when it is a hybrid host (memory bound to
// cgroup v1, an empty cgroup2 tree at /sys/fs/cgroup/unified): read only.
TEST_F(WatchCli, AHybridHostSaysMemoryIsBoundToV1) {
  auto host = run_cgmem_split("host --json");
  auto facts = json::parse(host.out, nullptr, false);
  if (!facts.is_object() || facts.value("memory_controller_usable", true) ||
      !std::filesystem::exists("/sys/fs/cgroup/memory/memory.usage_in_bytes"))
    GTEST_SKIP() << "not a host with memory on cgroup v1";
  auto top = run_cgmem_split("top --once --interval 100ms");
  EXPECT_EQ(top.code, 4) << top.out << top.err;
  EXPECT_NE(top.err.find("memory is bound to cgroup v1 (mounted at /sys/fs/cgroup/memory)"), std::string::npos)
      << top.err;
  auto watch = run_cgmem_split("watch --count 1 --json --interval 100ms");
  EXPECT_EQ(watch.code, 4) << watch.err;
  auto lines = json_lines(watch.out);
  ASSERT_EQ(lines.size(), 1u) << watch.out;
  EXPECT_EQ(lines[0]["memory_controller_usable"], false);
  auto page = run_cgmem_split("exporter --once --interval 100ms");
  EXPECT_EQ(page.code, 4) << page.err;
  EXPECT_NE(page.out.find("cgmem_memory_controller_usable{reason=\"no cgroup under "), std::string::npos) << page.out;
  EXPECT_NE(page.out.find("memory is bound to cgroup v1 (mounted at /sys/fs/cgroup/memory)\"} 0\n"),
            std::string::npos)
      << page.out;
}

}  // namespace
