// Runs the real cgmem binary and checks what a user sees.
#include <gtest/gtest.h>

#include "cli/command.h"
#include "support/run_cgmem.h"
#include "support/temp_dir.h"

#include <filesystem>

#include <string>

namespace {

using cgmem::testing::Output;

Output run(const std::string& args) { return cgmem::testing::run_cgmem(args); }

TEST(Cli, NoArgumentsPrintsUsageAndExits2) {
  auto out = run("");
  EXPECT_EQ(out.code, 2);
  EXPECT_NE(out.text.find("usage: cgmem COMMAND"), std::string::npos);
}

// Every command of the table is listed with its summary, in the table's
// order, and answers its own --help with its usage and exit code 0.
TEST(Cli, HelpListsEveryCommandAndEachHasHelp) {
  auto out = run("--help");
  EXPECT_EQ(out.code, 0);
  size_t last = 0;
  for (const auto& command : cgmem::cli::commands()) {
    size_t at = out.text.find(std::string(command.summary));
    ASSERT_NE(at, std::string::npos) << command.name << "'s summary is not in --help";
    EXPECT_NE(out.text.rfind(std::string(command.name), at), std::string::npos) << command.name;
    EXPECT_GT(at, last) << command.name << " is out of the table's order";
    last = at;
    auto help = run(std::string(command.name) + " --help");
    EXPECT_EQ(help.code, 0) << command.name << " --help";
    EXPECT_NE(help.text.find("cgmem " + std::string(command.name)), std::string::npos)
        << command.name << " --help does not name its command:\n" << help.text;
  }
}

TEST(Cli, UnknownCommandSuggests) {
  auto out = run("versoin");
  EXPECT_EQ(out.code, 2);
  EXPECT_EQ(out.text, "cgmem: error: unknown command 'versoin'; did you mean 'version'?\n");
}

TEST(Cli, UnknownCommandWithoutGuess) {
  auto out = run("zzzzzzzz");
  EXPECT_EQ(out.code, 2);
  EXPECT_EQ(out.text, "cgmem: error: unknown command 'zzzzzzzz'; run 'cgmem --help' for the list\n");
}

TEST(Cli, BadFlagIsAUsageError) {
  auto out = run("version --bogus");
  EXPECT_EQ(out.code, 2);
  EXPECT_NE(out.text.find("cgmem: error:"), std::string::npos);
}

TEST(Cli, VersionJson) {
  auto out = run("version --json");
  EXPECT_EQ(out.code, 0);
  EXPECT_NE(out.text.find("\"git_commit\""), std::string::npos);
  EXPECT_NE(out.text.find("\"binary_hash\""), std::string::npos);
}

}  // namespace

// Unsigned flags refuse -1 (as 2^64 - 1 it would be a churn that never ends).
TEST(Cli, UnsignedFlagsRejectSignsAndOverflow) {
  auto minus = run("workload --target 1M --churn -1");
  EXPECT_EQ(minus.code, 2);
  EXPECT_EQ(minus.text.substr(0, minus.text.find('\n')), "cgmem: error: --churn: '-1' is not a whole number");
  auto wide = run("workload --target 1M --churn 18446744073709551616");
  EXPECT_EQ(wide.code, 2);
  EXPECT_EQ(wide.text.substr(0, wide.text.find('\n')),
            "cgmem: error: --churn: 18446744073709551616 is out of range (0 to 1000000000)");
  auto reps = run("matrix examples/quick.toml --reps -3");
  EXPECT_EQ(reps.code, 2);
  EXPECT_EQ(reps.text.substr(0, reps.text.find('\n')), "cgmem: error: --reps: '-3' is not a whole number");
  auto cpu = run("run --name x --cpu -1 -- --target 1M");
  EXPECT_EQ(cpu.code, 2);
  EXPECT_EQ(cpu.text.substr(0, cpu.text.find('\n')), "cgmem: error: --cpu: '-1' is not a whole number");
}

// --neighbours is 1 to 64; anything else is a usage error before anything is created.
TEST(Cli, RunNeighboursOutOfRangeIsAUsageError) {
  for (const char* n : {"0", "65"}) {
    auto out = run(std::string("run --name x --neighbours ") + n + " -- --target 1M");
    EXPECT_EQ(out.code, 2) << out.text;
    EXPECT_EQ(out.text.substr(0, out.text.find('\n')),
              std::string("cgmem: error: --neighbours: ") + n + " is out of range (1 to 64)");
  }
  auto fast = run("run --name x --neighbours 64 --neighbour 10ms -- --target 1M");
  EXPECT_EQ(fast.code, 2) << fast.text;
  EXPECT_EQ(fast.text.substr(0, fast.text.find('\n')),
            "cgmem: error: --neighbours 64 at --neighbour 10ms charge the workload's CPU every 0.15625ms, more often "
            "than once per 1ms (together they would take the CPU from the workload; give --neighbour 64ms or more, "
            "or fewer --neighbours)");
}

// A --target above RAM is refused as `run` refuses such limits.
TEST(Cli, WorkloadTargetAboveRamIsRefused) {
  auto out = run("workload --target 64T");
  EXPECT_EQ(out.code, 2);
  EXPECT_NE(out.text.find("cgmem: error: --target 64TiB is above this machine's RAM ("), std::string::npos) << out.text;
}

// A missing --proc is an error, not "RAM 0B" printed as a fact.
TEST(Cli, HostRefusesAMissingProc) {
  auto out = run("host --proc /nonexistent");
  EXPECT_EQ(out.code, 2);
  EXPECT_EQ(out.text.substr(0, out.text.find('\n')), "cgmem: error: --proc: Directory does not exist: /nonexistent");
}

namespace {

// A `cgmem run` that fails before its workload starts (here: --parent is
// not a cgroup, refused before anything is written there) leaves no run
// directory and no empty runs/ it made itself; a runs/ that was there stays.
TEST(Cli, AFailedRunLeavesNoEmptyRunsDirectory) {
  cgmem::testing::TempDir tmp;
  std::string cd = "cd " + tmp.path() + " && ";
  std::string args = " run --name x --parent " + tmp.path() + " -- --target 1M 2>&1";
  auto out = cgmem::testing::run_shell(cd + CGMEM_BINARY + args);
  EXPECT_NE(out.code, 0) << out.text;
  EXPECT_FALSE(std::filesystem::exists(tmp.path() + "/runs")) << out.text;
  std::filesystem::create_directory(tmp.path() + "/runs");
  out = cgmem::testing::run_shell(cd + CGMEM_BINARY + args);
  EXPECT_NE(out.code, 0) << out.text;
  EXPECT_TRUE(std::filesystem::is_empty(tmp.path() + "/runs"));
}

}  // namespace
