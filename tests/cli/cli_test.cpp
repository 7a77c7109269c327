// Runs the real cgmem binary and checks what a user sees.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <string>

namespace {

struct Output {
  std::string text;  // stdout and stderr together
  int code;
};

Output run(const std::string& args) {
  std::string command = std::string(CGMEM_BINARY) + " " + args + " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  std::string text;
  std::array<char, 4096> buffer;
  while (size_t n = fread(buffer.data(), 1, buffer.size(), pipe)) text.append(buffer.data(), n);
  int status = pclose(pipe);
  return {text, WEXITSTATUS(status)};
}

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
