// Runs the real cgmem binary and checks what a user sees.
#include <gtest/gtest.h>

#include "support/run_cgmem.h"

#include <string>

namespace {

using cgmem::testing::Output;

Output run(const std::string& args) { return cgmem::testing::run_cgmem(args); }

TEST(Cli, NoArgumentsPrintsUsageAndExits2) {
  auto out = run("");
  EXPECT_EQ(out.code, 2);
  EXPECT_NE(out.text.find("usage: cgmem COMMAND"), std::string::npos);
}

TEST(Cli, HelpListsCommands) {
  auto out = run("--help");
  EXPECT_EQ(out.code, 0);
  EXPECT_NE(out.text.find("version"), std::string::npos);
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
