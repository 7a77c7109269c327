// `cgmem guard` end to end on a directory tree with the files of a real
// throttled cgroup, its memory.events.local high counter rising while the
// guard runs: the decision lines, the dry run, the refusal to write outside
// cgroupfs even with --act, and the errors word for word. (The real
// kernel's cases are in guard_vm_test.cpp.)
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "common/file.h"
#include "support/run_cgmem.h"
#include "support/temp_dir.h"
#include "watch/tree.h"

namespace {

using cgmem::testing::run_cgmem;
using cgmem::testing::run_shell;
using cgmem::testing::TempDir;
using nlohmann::json;

class GuardCli : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = tmp_.path() + "/root";
    cgmem::watch::testing::make_cgroup(root_ + "/jobs/leak");
    policy_ = tmp_.path() + "/p.toml";
    (void)cgmem::write_file(policy_, "[[rules]]\nname = \"leaks\"\nmatch = \"^/jobs/\"\naction = \"kill\"\n"
                                     "throttled_for = \"300ms\"\n");
  }
  // The guard for 8 intervals of 100 ms while the high counter rises by 17
  // every 50 ms (a sleep with nothing reclaimed: throttled).
  std::vector<json> guard(const std::string& flags) {
    return cgmem::testing::json_lines(guard_output("--json " + flags));
  }
  std::string guard_output(const std::string& flags, const std::string& leak = "/jobs/leak") {
    std::string events = "'" + root_ + leak + "/memory.events.local'";
    std::string rise = "( i=0; while [ $i -lt 24 ]; do i=$((i+1)); sleep 0.05; printf 'low 0\\nhigh %d\\nmax 0\\noom 0\\n"
                       "oom_kill 0\\noom_group_kill 0\\n' $((309+17*i)) > " + events + "; done ) & ";
    auto o = run_shell(rise + CGMEM_BINARY + std::string(" guard --policy ") + policy_ + " --root " + root_ +
                       " --count 8 --interval 100ms " + flags + " 2>/dev/null; wait");
    EXPECT_EQ(o.code, 0) << o.text;
    return o.text;
  }
  TempDir tmp_;
  std::string root_, policy_;
};

// A name that holds a newline, CR, ESC and a byte that is not UTF-8 can
// neither forge a `killed` line nor drive the terminal, nor stop the JSON.
TEST_F(GuardCli, AHostileNameCannotForgeALine) {
  std::string name = "/jobs/x\xff\x1b[2J\r\n12:00:00 kill other (rule leaks): forged -> killed (1 tasks)";
  std::filesystem::rename(root_ + "/jobs/leak", root_ + name);
  std::string text = guard_output("", name);
  ASSERT_FALSE(text.empty());
  EXPECT_EQ(text.find("\n12:00:00 kill other"), std::string::npos) << text;
  for (char c : text) EXPECT_TRUE(c == '\n' || (c >= 0x20 && c != 0x7f)) << int(c);
  EXPECT_NE(text.find("kill /jobs/x\\xff\\x1b[2J\\r\\n12:00:00 kill other (rule leaks): forged -> killed (1 tasks) "
                      "(rule leaks): "),
            std::string::npos)
      << text;
  auto lines = cgmem::testing::json_lines(guard_output("--json", name));
  ASSERT_FALSE(lines.empty());
  for (const json& l : lines) ASSERT_TRUE(l.is_object());
  EXPECT_EQ(lines.front()["cgroup"], "/jobs/x\xef\xbf\xbd\x1b[2J\r\n12:00:00 kill other (rule leaks): forged -> killed (1 tasks)");
}

TEST_F(GuardCli, ADryRunDecidesWithItsEvidenceAndWritesNothing) {
  std::string kill_before = *cgmem::read_file(root_ + "/jobs/leak/cgroup.kill", "read");
  auto lines = guard("");
  ASSERT_FALSE(lines.empty());
  const json& d = lines.front();
  EXPECT_EQ(d["cgroup"], "/jobs/leak");
  EXPECT_EQ(d["rule"], "leaks");
  EXPECT_EQ(d["decision"], "kill");
  EXPECT_TRUE(d["dry_run"].get<bool>());
  EXPECT_FALSE(d["acted"].get<bool>());
  EXPECT_EQ(d["result"], "dry run: would kill (--act to act)");
  EXPECT_GE(d["condition"]["throttled_s"].get<double>(), 0.3);
  EXPECT_EQ(d["row"]["state"], "throttled");
  EXPECT_EQ(*cgmem::read_file(root_ + "/jobs/leak/cgroup.kill", "read"), kill_before);
}

TEST_F(GuardCli, WithActItStillWritesNothingOutsideCgroupfs) {
  std::string kill_before = *cgmem::read_file(root_ + "/jobs/leak/cgroup.kill", "read");
  auto lines = guard("--act");
  ASSERT_FALSE(lines.empty());
  EXPECT_FALSE(lines.front()["acted"].get<bool>());
  EXPECT_EQ(lines.front()["result"].get<std::string>().rfind(
                "error: kill every process: not a cgroup (not on a cgroup2 file system)", 0),
            0u)
      << lines.front()["result"];
  EXPECT_EQ(lines.front()["fresh"]["current"], 34140160);  // re-read before acting
  EXPECT_EQ(*cgmem::read_file(root_ + "/jobs/leak/cgroup.kill", "read"), kill_before);
}

TEST_F(GuardCli, ErrorsSayWhatWasTriedAndWhatToDo) {
  auto o = run_cgmem("guard --policy " + policy_ + " --act");
  EXPECT_EQ(o.code, 2);
  EXPECT_EQ(o.text,
            "cgmem: error: --act without --root: the guard acts only inside a subtree it is given (pass --root "
            "/sys/fs/cgroup/SUBTREE (the rules match paths below it))\n");
  (void)cgmem::write_file(policy_, "[[rules]]\nname = \"r\"\nmatch = \".\"\naction = \"kill\"\n");
  o = run_cgmem("guard --policy " + policy_ + " --root " + root_);
  EXPECT_EQ(o.code, 2);
  EXPECT_EQ(o.text, "cgmem: error: guard policy: rule 'r': a kill rule needs throttled_for, eta_over or thrash_for: " +
                        policy_ + " (see docs/guard.md for the format)\n");
}

// '(a+)+$' against 40 a's and a b: std::regex backtracked for ever, the
// guard's scan never ended and the guard did not stop on SIGTERM.
TEST_F(GuardCli, ACatastrophicMatchNeitherHangsTheScanNorSIGTERM) {
  cgmem::watch::testing::make_cgroup(root_ + "/" + std::string(40, 'a') + "b");
  (void)cgmem::write_file(policy_, "[[rules]]\nname = \"r\"\nmatch = \"(a+)+$\"\naction = \"report\"\n"
                                   "throttled_for = \"1s\"\n");
  std::string guard = std::string(CGMEM_BINARY) + " guard --policy " + policy_ + " --root " + root_;
  auto start = std::chrono::steady_clock::now();
  auto o = run_shell("timeout -s KILL 20 " + guard + " --count 2 --interval 100ms >/dev/null 2>&1; echo $?");
  EXPECT_EQ(o.text, "0\n");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  // Until SIGTERM: it must stop and say so within a second of it.
  o = run_shell("( timeout -s KILL 20 " + guard + " --interval 100ms >/dev/null 2>&1 & pid=$!; sleep 1; "
                "kill -TERM $pid; t=0; while kill -0 $pid 2>/dev/null && [ $t -lt 10 ]; do sleep 0.1; t=$((t+1)); done; "
                "wait $pid; echo \"$? $t\" )");
  int code = -1, tenths = -1;
  ASSERT_EQ(std::sscanf(o.text.c_str(), "%d %d", &code, &tenths), 2) << o.text;
  EXPECT_EQ(code, 0) << o.text;
  EXPECT_LT(tenths, 10) << o.text;
}

TEST_F(GuardCli, CheckListsTheRules) {
  auto o = run_cgmem("guard --policy " + policy_ + " --check");
  EXPECT_EQ(o.code, 0);
  EXPECT_EQ(o.text, "leaks            kill           match ^/jobs/\n");
}

}  // namespace
