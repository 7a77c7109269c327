#include "common/process.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

#include "../support/temp_dir.h"
#include "common/fd.h"

namespace cgmem {
namespace {

using namespace std::chrono_literals;
using testing::TempDir;

// True once `pid` is gone or a zombie: a process that no longer runs.
bool ended_within(pid_t pid, std::chrono::milliseconds limit) {
  auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string text;
    if (!std::getline(stat, text)) return true;
    auto state = text.find(") ");
    if (state != std::string::npos && text[state + 2] == 'Z') return true;
    std::this_thread::sleep_for(10ms);
  }
  return false;
}

// PATH is searched the same way for every caller: regular executable files
// only, in order, empty entries skipped (they would mean the working
// directory).
TEST(FindOnPath, TakesTheFirstRegularExecutableFile) {
  TempDir a, b;
  namespace fs = std::filesystem;
  fs::create_directory(a.dir() / "tool");                 // a directory is not a program
  std::ofstream(b.dir() / "plain") << "not executable\n";  // nor a file without x
  std::ofstream(b.dir() / "tool") << "#!/bin/sh\n";
  fs::permissions(b.dir() / "tool", fs::perms::owner_all);
  const char* saved = std::getenv("PATH");
  std::string old = saved ? saved : "";
  ::setenv("PATH", (":" + a.path() + "::" + b.path()).c_str(), 1);
  EXPECT_EQ(find_on_path("tool"), (b.dir() / "tool").string());
  EXPECT_FALSE(find_on_path("plain"));
  EXPECT_FALSE(find_on_path("absent"));
  EXPECT_EQ(find_on_path((b.dir() / "tool").string()), (b.dir() / "tool").string());
  EXPECT_FALSE(find_on_path((a.dir() / "tool").string()));
  EXPECT_FALSE(find_on_path(""));
  ::setenv("PATH", old.c_str(), 1);
}

TEST(Process, ExecFailureSaysWhichStepAndWhy) {
  auto started = Process::start({.argv = {"/nonexistent/program"}});
  ASSERT_FALSE(started);
  EXPECT_EQ(started.error().message(), "run /nonexistent/program: exec: No such file or directory");
  EXPECT_EQ(started.error().err, ENOENT);
}

TEST(Process, MissingDirectoryIsAChdirError) {
  auto started = Process::start({.argv = {"true"}, .cwd = "/nonexistent/dir", .what = "start make",
                                 .error_path = "/nonexistent/dir"});
  ASSERT_FALSE(started);
  EXPECT_EQ(started.error().message(), "start make: change directory: /nonexistent/dir: No such file or directory");
}

TEST(Process, EmptyCommandIsRefused) {
  auto started = Process::start({});
  ASSERT_FALSE(started);
  EXPECT_EQ(started.error().message(), "start a program: no command given");
}

TEST(Process, ExitCodeAndSignalAreCodes) {
  auto three = Process::start({.argv = {"sh", "-c", "exit 3"}});
  ASSERT_TRUE(three) << three.error().message();
  EXPECT_EQ(three->wait(), 3);
  EXPECT_FALSE(three->running());
  auto killed = Process::start({.argv = {"sh", "-c", "kill -TERM $$"}});
  ASSERT_TRUE(killed);
  EXPECT_EQ(killed->wait(), 128 + SIGTERM);
}

TEST(Process, WaitForTimesOutAndStopEndsIt) {
  auto sleeper = Process::start({.argv = {"sleep", "30"}});
  ASSERT_TRUE(sleeper);
  EXPECT_EQ(sleeper->wait_for(50ms), std::nullopt);
  EXPECT_EQ(sleeper->poll(), std::nullopt);
  EXPECT_EQ(sleeper->stop(2s), 128 + SIGTERM);
  EXPECT_FALSE(sleeper->running());
}

TEST(Process, StopEndsTheWholeGroup) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  Fd read_end(fds[0]), write_end(fds[1]);
  // The shell starts a grandchild and reports its pid; the shell then waits.
  auto shell = Process::start({.argv = {"sh", "-c", "sleep 30 & echo $!; wait"},
                               .stdout_fd = write_end.get(),
                               .own_group = true});
  ASSERT_TRUE(shell);
  write_end.reset();
  char text[32] = {};
  ASSERT_GT(read(read_end.get(), text, sizeof text - 1), 0);
  pid_t grandchild = std::stoi(text);
  shell->stop(2s);
  EXPECT_TRUE(ended_within(grandchild, 2s)) << "the sleep outlived its group's stop";
}

TEST(Process, DroppingARunningProcessKillsAndReapsIt) {
  pid_t pid;
  {
    auto sleeper = Process::start({.argv = {"sleep", "30"}});
    ASSERT_TRUE(sleeper);
    pid = sleeper->pid();
  }
  EXPECT_EQ(kill(pid, 0), -1);  // reaped: no zombie left behind
  EXPECT_EQ(errno, ESRCH);
}

TEST(Process, ReleasedProcessIsTheCallersToWaitFor) {
  pid_t pid;
  {
    auto quick = Process::start({.argv = {"sh", "-c", "exit 7"}});
    ASSERT_TRUE(quick);
    pid = quick->release();
    EXPECT_FALSE(quick->running());
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  EXPECT_EQ(exit_code_of(status), 7);
}

TEST(Process, StdinIsDevNullUnlessGiven) {
  auto out = run_program({"cat"});  // would block on an inherited terminal or pipe
  ASSERT_TRUE(out) << out.error().message();
  EXPECT_EQ(out->exit_code, 0);
  EXPECT_EQ(out->output, "");
}

TEST(Process, RunProgramKeepsStdoutAndStderrInOrder) {
  auto out = run_program({"sh", "-c", "echo out; echo err >&2; pwd"}, "/tmp");
  ASSERT_TRUE(out) << out.error().message();
  EXPECT_EQ(out->output, "out\nerr\n/tmp\n");
}

TEST(Process, RunProgramToFileSplitsStdoutFromStderr) {
  TempDir tmp;
  std::string path = tmp.path() + "/out";
  auto out = run_program_to_file({"sh", "-c", "echo data; echo note >&2"}, path);
  ASSERT_TRUE(out) << out.error().message();
  EXPECT_EQ(out->output, "note\n");
  std::stringstream file;
  file << std::ifstream(path).rdbuf();
  EXPECT_EQ(file.str(), "data\n");
}

TEST(Process, ShellQuote) {
  EXPECT_EQ(shell_quote("version"), "version");
  EXPECT_EQ(shell_quote("--out=/a/b"), "--out=/a/b");
  EXPECT_EQ(shell_quote(""), "''");
  EXPECT_EQ(shell_quote("a b"), "'a b'");
  EXPECT_EQ(shell_quote("it's"), "'it'\\''s'");
  EXPECT_EQ(shell_quote("$(reboot)"), "'$(reboot)'");
  EXPECT_EQ(command_line({"apt-get", "download", "linux-image-6.12.117+deb12-cloud-amd64"}),
            "apt-get download linux-image-6.12.117+deb12-cloud-amd64");
}

TEST(Process, QuotedWordsSurviveTheShell) {
  std::vector<std::string> words = {"a b", "it's", "$HOME", "", "x\ny", "*"};
  std::string script = "for w in";
  for (const auto& w : words) script.append(" ").append(shell_quote(w));
  script += "; do printf '[%s]' \"$w\"; done";
  auto out = run_program({"sh", "-c", script});
  ASSERT_TRUE(out.has_value());
  EXPECT_EQ(out->output, "[a b][it's][$HOME][][x\ny][*]");
}

TEST(Process, MissingProgramIsAnError) {
  auto out = run_program({"cgmem-no-such-program"});
  ASSERT_FALSE(out.has_value());
  EXPECT_EQ(out.error().message(),
            "run cgmem-no-such-program: exec: No such file or directory (is it installed? "
            "scripts/install-deps.sh installs it)");
}

TEST(Process, ExitCodeIsAValue) {
  auto out = run_program({"sh", "-c", "echo x; exit 3"});
  ASSERT_TRUE(out.has_value());
  EXPECT_EQ(out->exit_code, 3);
  EXPECT_EQ(out->output, "x\n");
}

}  // namespace
}  // namespace cgmem
