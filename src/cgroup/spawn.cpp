// Starting a process inside a cgroup.
//
// clone3(CLONE_INTO_CGROUP) (Linux 5.7) creates the child directly in the
// cgroup, so not one page it touches is charged elsewhere. Where clone3 or
// the flag is missing (ENOSYS, E2BIG, EINVAL), or the fd is not a cgroup2
// directory (EBADF: a fixture tree), fall back to fork: the child writes its
// own pid to cgroup.procs before exec. Either way the child reports a
// failure before exec through a close-on-exec pipe: (stage, errno); EOF on
// the pipe means exec succeeded.
#include <fcntl.h>
#include <linux/sched.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <optional>

#include "cgroup/cgroup.h"
#include "cgroup/files.h"

namespace cgmem::cgroup {

namespace {

enum Stage : int { kRedirect = 1, kJoin = 2, kExec = 3 };

struct Report {
  int stage = 0;
  int err = 0;
};

// In the child: only async-signal-safe calls from here to exec.
[[noreturn]] void child_fail(int pipe_fd, Stage stage) {
  Report report{stage, errno};
  ssize_t ignored = ::write(pipe_fd, &report, sizeof report);
  (void)ignored;
  ::_exit(127);
}

// Writes the calling process's pid to procs_fd without allocating.
bool join_by_pid(int procs_fd) {
  char digits[16];
  int n = 0;
  for (pid_t pid = ::getpid(); pid > 0 && n < 16; pid /= 10) digits[15 - n++] = char('0' + pid % 10);
  return ::write(procs_fd, digits + 16 - n, static_cast<size_t>(n)) == n;
}

[[noreturn]] void child_main(const SpawnOptions& options, char* const* argv, int pipe_fd,
                             int procs_fd) {
  const int targets[3] = {STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO};
  const int sources[3] = {options.stdin_fd, options.stdout_fd, options.stderr_fd};
  for (int i = 0; i < 3; ++i) {
    if (sources[i] < 0) continue;
    // dup2 clears close-on-exec on the copy; an fd already in place keeps
    // its flags, so clear the flag there.
    int ok = sources[i] == targets[i] ? ::fcntl(targets[i], F_SETFD, 0)
                                      : ::dup2(sources[i], targets[i]);
    if (ok < 0) child_fail(pipe_fd, kRedirect);
  }
  if (procs_fd >= 0 && !join_by_pid(procs_fd)) child_fail(pipe_fd, kJoin);
  ::execvp(argv[0], argv);
  child_fail(pipe_fd, kExec);
}

pid_t clone_into(int cgroup_fd) {
  clone_args args{};
  args.flags = CLONE_INTO_CGROUP;
  args.exit_signal = SIGCHLD;
  args.cgroup = static_cast<uint64_t>(cgroup_fd);
  return static_cast<pid_t>(::syscall(SYS_clone3, &args, sizeof args));
}

bool clone3_unusable(int err) { return err == ENOSYS || err == E2BIG || err == EINVAL || err == EBADF; }

std::string stage_text(int stage) {
  return stage == kRedirect ? "redirect stdin/stdout/stderr"
         : stage == kJoin   ? "join the cgroup (write cgroup.procs)"
                            : "exec";
}

// Waits for the child's report: EOF means exec succeeded.
std::optional<Report> read_report(int pipe_fd) {
  Report report;
  ssize_t n;
  do {
    n = ::read(pipe_fd, &report, sizeof report);
  } while (n < 0 && errno == EINTR);
  if (n == sizeof report) return report;
  return std::nullopt;
}

}  // namespace

Result<pid_t> Cgroup::spawn(const SpawnOptions& options, SpawnMethod* method) const {
  if (options.argv.empty()) return fail("spawn: no command given");
  if (auto ok = require_cgroupfs("spawn " + options.argv[0]); !ok) return std::unexpected(ok.error());
  const std::string& program = options.argv[0];
  std::vector<char*> argv;
  for (const auto& arg : options.argv) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) return sys_error("spawn " + program + ": create a pipe");

  SpawnMethod used = SpawnMethod::kCloneIntoCgroup;
  int procs_fd = -1;
  pid_t pid = clone_into(fd_);
  if (pid < 0 && clone3_unusable(errno)) {
    used = SpawnMethod::kForkAndMove;
    procs_fd = ::openat(fd_, files::kCgroupProcs, O_WRONLY | O_CLOEXEC);
    pid = procs_fd < 0 ? -1 : ::fork();
  }
  if (pid == 0) child_main(options, argv.data(), pipe_fds[1], procs_fd);
  int saved = errno;
  ::close(pipe_fds[1]);
  if (procs_fd >= 0) ::close(procs_fd);
  if (pid < 0) {
    ::close(pipe_fds[0]);
    errno = saved;
    if (used == SpawnMethod::kForkAndMove && procs_fd < 0) {
      return sys_error("spawn " + program + ": open", file_path(files::kCgroupProcs));
    }
    return sys_error("spawn " + program + " in", path_);
  }
  auto report = read_report(pipe_fds[0]);
  ::close(pipe_fds[0]);
  if (report) {
    ::waitpid(pid, nullptr, 0);
    return std::unexpected(Error{"spawn " + program + ": " + stage_text(report->stage),
                                 report->err, path_, ""});
  }
  if (method) *method = used;
  return pid;
}

}  // namespace cgmem::cgroup
