// Running other programs (apt-get, dpkg-deb, mkfs.ext4, debugfs, gzip, qemu)
// without a shell: argv vectors, fork + execvp, output captured through a
// pipe. The long-running child (qemu) dies with cgmem (PR_SET_PDEATHSIG), and
// the caller ends it by PID on a timeout or a signal.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "common/error.h"

namespace cgmem::vm {

struct Finished {
  int exit_code = 0;   // the program's exit code, or 128 + signal
  std::string output;  // stdout and stderr together
};

// Runs argv[0] (searched on PATH) in `cwd` (empty: this one) and waits.
// Fails only when the program cannot be started: a nonzero exit is a value.
Result<Finished> run_program(const std::vector<std::string>& argv, const std::string& cwd = {});

// Like run_program, but writes the program's stdout to `stdout_path`
// (stderr is still captured).
Result<Finished> run_program_to_file(const std::vector<std::string>& argv,
                                     const std::string& stdout_path);

// "apt-get download ..." with the arguments shell-quoted where needed, for
// messages that show the user a command to run.
std::string command_line(const std::vector<std::string>& argv);

// Quotes one word for sh: as is when it is safe, else in single quotes.
std::string shell_quote(const std::string& word);

// True when `name` is an executable on PATH (or a path to one).
bool on_path(const std::string& name);

// A started child that must not outlive us.
class Child {
 public:
  // Starts argv with stdin from /dev/null, stdout and stderr inherited, in its
  // own process group (a terminal's ^C reaches cgmem, which ends the child),
  // and with SIGKILL as its parent-death signal. With stdout_to_stderr the
  // child's stdout is cgmem's stderr.
  static Result<Child> start(const std::vector<std::string>& argv, bool stdout_to_stderr = false);

  Child(Child&& other) noexcept : pid_(other.pid_) { other.pid_ = -1; }
  Child& operator=(Child&&) = delete;
  ~Child();  // ends the child (SIGKILL) if it still runs

  pid_t pid() const { return pid_; }

  // Waits up to `timeout` for the child to exit; returns its exit code
  // (128 + signal if killed), or nothing if it is still running.
  std::optional<int> wait_for(std::chrono::milliseconds timeout);

  // SIGTERM, then SIGKILL after `grace`; reaps the child. Returns its code.
  int stop(std::chrono::milliseconds grace);

 private:
  explicit Child(pid_t pid) : pid_(pid) {}
  pid_t pid_ = -1;
};

}  // namespace cgmem::vm
