// Starting and waiting for other programs: the one launcher of cgmem (the
// workload in its cgroup, qemu, make, gnuplot, `cgmem run` under the matrix,
// the tools that build the VM's disk). fork, or clone3 straight into a
// cgroup, then exec of the program found on PATH before the fork; never a
// shell. (The workload's processes and the neighbour fork without exec: they
// run cgmem's own code, lab/workload.cpp and lab/neighbour.cpp.) The child reports a failure before exec
// through a close-on-exec pipe as (stage, errno), so a program that cannot
// start is an Error saying which step failed, never an exit code to guess at.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "common/error.h"

namespace cgmem {

// Where a standard stream of the child comes from or goes to, besides an fd.
inline constexpr int kInherit = -1;  // the same as cgmem's
inline constexpr int kDevNull = -2;  // /dev/null

struct ProcessSpec {
  std::vector<std::string> argv;  // argv[0] is searched on PATH unless it holds a '/'
  std::string cwd;                // empty: cgmem's own
  int stdin_fd = kDevNull;
  int stdout_fd = kInherit;
  int stderr_fd = kInherit;
  // Its own process group: a terminal's ^C reaches cgmem only (which then
  // ends the child), and signal() and stop() reach the group.
  bool own_group = false;
  bool die_with_cgmem = false;  // SIGKILL when cgmem dies (PR_SET_PDEATHSIG)
  // Start it inside this cgroup directory: clone3(CLONE_INTO_CGROUP) where
  // the kernel has it, else fork and have the child write its pid to the
  // directory's cgroup.procs before exec.
  int cgroup_fd = -1;
  // Errors read "WHAT: STAGE: PATH: strerror (HINT)"; WHAT defaults to
  // "run PROGRAM".
  std::string what, error_path, hint;
};

class Process {
 public:
  static Result<Process> start(const ProcessSpec& spec);

  Process(Process&& other) noexcept;
  Process& operator=(Process&& other) noexcept;
  Process(const Process&) = delete;
  Process& operator=(const Process&) = delete;
  ~Process();  // a child still running is killed (SIGKILL) and reaped

  pid_t pid() const { return pid_; }
  bool running() const { return pid_ > 0; }
  // True when clone3 put it in the cgroup from its first instruction; false
  // when it joined through cgroup.procs (or no cgroup was asked for).
  bool cloned_into_cgroup() const { return cloned_into_cgroup_; }

  // Blocks until it exits: its exit code, or 128 + the signal that ended it.
  int wait();
  // Its code if it has exited, without blocking.
  std::optional<int> poll();
  // Waits up to `timeout`; nothing if it is still running then.
  std::optional<int> wait_for(std::chrono::milliseconds timeout);
  // Sends `sig` (to its group when it has one).
  void signal(int sig) const;
  // SIGTERM, then SIGKILL after `grace` (at once for 0); reaps it.
  int stop(std::chrono::milliseconds grace);
  // Gives up ownership: the caller waits for the pid from now on.
  pid_t release();

 private:
  Process(pid_t pid, bool group, bool cloned) : pid_(pid), group_(group), cloned_into_cgroup_(cloned) {}
  int reaped(int status);
  pid_t pid_ = -1;
  bool group_ = false;
  bool cloned_into_cgroup_ = false;
};

// An exit status from waitpid as a code: the exit code, or 128 + signal.
int exit_code_of(int wait_status);

struct Finished {
  int exit_code = 0;   // the program's exit code, or 128 + signal
  std::string output;  // stdout and stderr together
};

// Runs argv in `cwd` (empty: this one), stdin from /dev/null, and waits,
// keeping its stdout and stderr. Fails only when the program cannot be
// started: a nonzero exit is a value.
Result<Finished> run_program(const std::vector<std::string>& argv, const std::string& cwd = {});
// Like run_program, but its stdout goes to `stdout_path` (stderr is kept).
Result<Finished> run_program_to_file(const std::vector<std::string>& argv,
                                     const std::string& stdout_path);

// "apt-get download ..." with the arguments shell-quoted where needed, for
// messages that show the user a command to run.
std::string command_line(const std::vector<std::string>& argv);
// Quotes one word for sh: as is when it is safe, else in single quotes.
std::string shell_quote(const std::string& word);
// This machine's name (gethostname), "" when it cannot be read.
std::string host_name();
// PATH, or kDefaultSearchPath where it is unset or empty.
inline constexpr char kDefaultSearchPath[] = "/usr/local/bin:/usr/bin:/bin";
std::string search_path();
// The first regular, executable file called `name` in search_path()'s
// directories, or `name` itself when it has a slash and is one.
std::optional<std::string> find_on_path(const std::string& name);
// True when find_on_path() finds it.
bool on_path(const std::string& name);

}  // namespace cgmem
