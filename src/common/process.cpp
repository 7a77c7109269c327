#include "common/process.h"

#include <fcntl.h>
#include <linux/sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <limits.h>
#include <unistd.h>

#include <cstdlib>
#include <thread>
#include <utility>

#include "common/fd.h"

namespace cgmem {

namespace {

enum Stage : int { kRedirect = 1, kGroup, kChdir, kJoin, kExec };

const char* stage_text(int stage) {
  switch (stage) {
    case kRedirect: return "redirect stdin/stdout/stderr";
    case kGroup: return "set up its process group and parent-death signal";
    case kChdir: return "change directory";
    case kJoin: return "join the cgroup (write cgroup.procs)";
    default: return "exec";
  }
}

struct Report {
  int stage = 0;
  int err = 0;
};

// Everything the child needs, prepared before fork: after fork only
// async-signal-safe calls may run (cgmem may have threads).
struct ChildPlan {
  std::vector<char*> argv;
  // argv[0] found on PATH before fork (execvp's search allocates, which is
  // not safe after fork); null when not found, and then execvp reports it.
  const char* file = nullptr;
  const char* cwd = nullptr;
  int stdio[3] = {kDevNull, kInherit, kInherit};
  bool own_group = false;
  bool die_with_cgmem = false;
  pid_t parent = 0;
  int procs_fd = -1;  // write our pid here before exec (the fork way into a cgroup)
  int report_fd = -1;
};

[[noreturn]] void child_fail(int report_fd, Stage stage) {
  Report report{stage, errno};
  (void)!::write(report_fd, &report, sizeof report);
  ::_exit(127);
}

bool write_own_pid(int fd) {
  char digits[16];
  int n = 0;
  for (pid_t pid = ::getpid(); pid > 0 && n < 16; pid /= 10) digits[15 - n++] = char('0' + pid % 10);
  return ::write(fd, digits + 16 - n, static_cast<size_t>(n)) == n;
}

// Puts `source` (an fd, kInherit or kDevNull) on `target`. dup2 clears
// close-on-exec on the copy; an fd already in place keeps its flags, so the
// flag is cleared there.
bool redirect(int source, int target) {
  if (source == kInherit) return true;
  if (source == kDevNull) {
    int null_fd = ::open("/dev/null", target == STDIN_FILENO ? O_RDONLY : O_WRONLY);
    if (null_fd < 0) return false;
    if (null_fd == target) return true;
    bool ok = ::dup2(null_fd, target) >= 0;
    ::close(null_fd);
    return ok;
  }
  return source == target ? ::fcntl(target, F_SETFD, 0) == 0 : ::dup2(source, target) >= 0;
}

[[noreturn]] void child_main(const ChildPlan& plan) {
  if (plan.own_group && ::setpgid(0, 0) != 0) child_fail(plan.report_fd, kGroup);
  if (plan.die_with_cgmem) {
    if (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) child_fail(plan.report_fd, kGroup);
    if (::getppid() != plan.parent) ::_exit(127);  // cgmem died before prctl took effect
  }
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  // Order matters: an fd given for stdout may be the one now on stdin.
  for (int target : {STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO}) {
    if (!redirect(plan.stdio[target], target)) child_fail(plan.report_fd, kRedirect);
  }
  if (plan.cwd && ::chdir(plan.cwd) != 0) child_fail(plan.report_fd, kChdir);
  if (plan.procs_fd >= 0 && !write_own_pid(plan.procs_fd)) child_fail(plan.report_fd, kJoin);
  if (plan.file) ::execv(plan.file, plan.argv.data());
  else ::execvp(plan.argv[0], plan.argv.data());
  child_fail(plan.report_fd, kExec);
}

pid_t clone_into(int cgroup_fd) {
  clone_args args{};
  args.flags = CLONE_INTO_CGROUP;
  args.exit_signal = SIGCHLD;
  args.cgroup = static_cast<uint64_t>(cgroup_fd);
  return static_cast<pid_t>(::syscall(SYS_clone3, &args, sizeof args));
}

// clone3 or its CLONE_INTO_CGROUP flag missing (ENOSYS, E2BIG, EINVAL), or
// the fd not a cgroup2 directory (EBADF): fall back to fork.
bool clone3_unusable(int err) { return err == ENOSYS || err == E2BIG || err == EINVAL || err == EBADF; }

// Waits for the child's report: end of file means exec succeeded.
std::optional<Report> read_report(int fd) {
  Report report;
  ssize_t n;
  do {
    n = ::read(fd, &report, sizeof report);
  } while (n < 0 && errno == EINTR);
  if (n == sizeof report) return report;
  return std::nullopt;
}

std::unexpected<Error> start_error(const ProcessSpec& spec, std::string step, int err,
                                   std::string path = {}) {
  std::string what = spec.what.empty() ? "run " + spec.argv[0] : spec.what;
  return std::unexpected(Error{what + ": " + std::move(step), err,
                               path.empty() ? spec.error_path : std::move(path), spec.hint});
}

}  // namespace

int exit_code_of(int wait_status) {
  if (WIFEXITED(wait_status)) return WEXITSTATUS(wait_status);
  if (WIFSIGNALED(wait_status)) return 128 + WTERMSIG(wait_status);
  return 255;
}

Result<Process> Process::start(const ProcessSpec& spec) {
  if (spec.argv.empty()) return fail("start a program: no command given");
  ChildPlan plan;
  for (const auto& word : spec.argv) plan.argv.push_back(const_cast<char*>(word.c_str()));
  plan.argv.push_back(nullptr);
  std::optional<std::string> file = find_on_path(spec.argv[0]);
  if (file) plan.file = file->c_str();
  plan.cwd = spec.cwd.empty() ? nullptr : spec.cwd.c_str();
  plan.stdio[0] = spec.stdin_fd, plan.stdio[1] = spec.stdout_fd, plan.stdio[2] = spec.stderr_fd;
  plan.own_group = spec.own_group;
  plan.die_with_cgmem = spec.die_with_cgmem;
  plan.parent = ::getpid();

  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) return start_error(spec, "create a pipe", errno);
  Fd report_in(pipe_fds[0]), report_out(pipe_fds[1]);
  plan.report_fd = report_out.get();

  bool cloned = spec.cgroup_fd >= 0;
  pid_t pid = cloned ? clone_into(spec.cgroup_fd) : -1;
  Fd procs;
  if (!cloned || (pid < 0 && clone3_unusable(errno))) {
    cloned = false;
    if (spec.cgroup_fd >= 0) {
      procs.reset(::openat(spec.cgroup_fd, "cgroup.procs", O_WRONLY | O_CLOEXEC));
      if (!procs.valid()) return start_error(spec, "open", errno, spec.error_path + "/cgroup.procs");
      plan.procs_fd = procs.get();
    }
    pid = ::fork();
  }
  if (pid == 0) child_main(plan);
  if (pid < 0) return start_error(spec, spec.cgroup_fd >= 0 ? "start it in the cgroup" : "fork", errno);
  if (spec.own_group) ::setpgid(pid, pid);  // from both sides: no signal can miss the group
  report_out.reset();
  procs.reset();
  Process child(pid, spec.own_group, cloned);
  if (auto report = read_report(report_in.get())) {
    child.wait();
    return start_error(spec, stage_text(report->stage), report->err);
  }
  return child;
}

Process::Process(Process&& other) noexcept
    : pid_(std::exchange(other.pid_, -1)), group_(other.group_), cloned_into_cgroup_(other.cloned_into_cgroup_) {}

Process& Process::operator=(Process&& other) noexcept {
  if (this != &other) {
    if (pid_ > 0) stop(std::chrono::milliseconds(0));
    pid_ = std::exchange(other.pid_, -1);
    group_ = other.group_;
    cloned_into_cgroup_ = other.cloned_into_cgroup_;
  }
  return *this;
}

Process::~Process() {
  if (pid_ > 0) stop(std::chrono::milliseconds(0));
}

int Process::reaped(int status) {
  pid_ = -1;
  return exit_code_of(status);
}

int Process::wait() {
  if (pid_ <= 0) return 255;
  int status = 0;
  while (::waitpid(pid_, &status, 0) < 0) {
    if (errno != EINTR) return reaped(0xff00);  // not our child any more
  }
  return reaped(status);
}

std::optional<int> Process::poll() {
  if (pid_ <= 0) return std::nullopt;
  int status = 0;
  pid_t got = ::waitpid(pid_, &status, WNOHANG);
  if (got == pid_) return reaped(status);
  if (got < 0 && errno != EINTR) return reaped(0xff00);
  return std::nullopt;
}

std::optional<int> Process::wait_for(std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (pid_ > 0) {
    if (auto code = poll()) return code;
    if (std::chrono::steady_clock::now() >= deadline) return std::nullopt;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return std::nullopt;
}

void Process::signal(int sig) const {
  if (pid_ > 0) ::kill(group_ ? -pid_ : pid_, sig);
}

int Process::stop(std::chrono::milliseconds grace) {
  if (pid_ <= 0) return 255;
  pid_t pid = pid_;
  if (grace.count() > 0) {
    signal(SIGTERM);
    if (auto code = wait_for(grace)) {
      if (group_) ::kill(-pid, SIGKILL);  // what it started, if any outlived it
      return *code;
    }
  }
  signal(SIGKILL);
  return wait();
}

pid_t Process::release() { return std::exchange(pid_, -1); }

namespace {

Result<Finished> run_capturing(const std::vector<std::string>& argv, const std::string& cwd,
                               const std::string& stdout_path) {
  if (argv.empty()) return fail("run a program: no command given");
  Fd out_file;
  if (!stdout_path.empty()) {
    out_file.reset(::open(stdout_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
    if (!out_file.valid()) return sys_error("create the output file of " + argv[0], stdout_path);
  }
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return sys_error("create a pipe to run " + argv[0]);
  Fd read_end(fds[0]), write_end(fds[1]);
  auto child = Process::start({.argv = argv,
                               .cwd = cwd,
                               .stdout_fd = out_file.valid() ? out_file.get() : write_end.get(),
                               .stderr_fd = write_end.get(),
                               .hint = "is it installed? scripts/install-deps.sh installs it"});
  if (!child) return std::unexpected(child.error());
  write_end.reset();
  out_file.reset();
  Finished done;
  char buffer[4096];
  ssize_t n;
  while ((n = ::read(read_end.get(), buffer, sizeof buffer)) > 0 || (n < 0 && errno == EINTR)) {
    if (n > 0) done.output.append(buffer, static_cast<size_t>(n));
  }
  done.exit_code = child->wait();
  return done;
}

}  // namespace

Result<Finished> run_program(const std::vector<std::string>& argv, const std::string& cwd) {
  return run_capturing(argv, cwd, {});
}

Result<Finished> run_program_to_file(const std::vector<std::string>& argv,
                                     const std::string& stdout_path) {
  return run_capturing(argv, {}, stdout_path);
}

std::string host_name() {
  char name[HOST_NAME_MAX + 1] = "";
  if (::gethostname(name, sizeof name - 1) != 0) return "";
  return name;
}

std::string shell_quote(const std::string& word) {
  if (!word.empty() && word.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                              "0123456789_-+./=:,@%^") == std::string::npos) {
    return word;
  }
  std::string out(1, '\'');
  for (char c : word) {
    if (c == '\'') {
      out.append("'\\''");
    } else {
      out.push_back(c);
    }
  }
  out.push_back('\'');
  return out;
}

std::string command_line(const std::vector<std::string>& argv) {
  std::string out;
  for (const auto& word : argv) {
    if (!out.empty()) out.push_back(' ');
    out.append(shell_quote(word));
  }
  return out;
}

std::string search_path() {
  const char* path = std::getenv("PATH");
  return path && *path ? path : kDefaultSearchPath;
}

std::optional<std::string> find_on_path(const std::string& name) {
  auto runnable = [](const std::string& file) {
    struct stat st;
    return ::stat(file.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(file.c_str(), X_OK) == 0;
  };
  if (name.empty()) return std::nullopt;
  if (name.find('/') != std::string::npos) return runnable(name) ? std::optional(name) : std::nullopt;
  const std::string dirs = search_path();
  for (size_t start = 0; start <= dirs.size();) {
    size_t end = std::min(dirs.find(':', start), dirs.size());
    if (end > start) {  // an empty entry would mean the working directory: never searched
      std::string candidate = dirs.substr(start, end - start) + "/" + name;
      if (runnable(candidate)) return candidate;
    }
    start = end + 1;
  }
  return std::nullopt;
}

bool on_path(const std::string& name) { return find_on_path(name).has_value(); }

}  // namespace cgmem
