#include "vm/process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <thread>

namespace cgmem::vm {

namespace {

std::vector<char*> c_argv(const std::vector<std::string>& argv) {
  std::vector<char*> out;
  for (const auto& word : argv) out.push_back(const_cast<char*>(word.c_str()));
  out.push_back(nullptr);
  return out;
}

int decode_status(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 255;
}

// In the child after fork: report an exec failure through the pipe as
// "exec:ERRNO" and exit 127.
[[noreturn]] void exec_or_report(const std::vector<std::string>& argv, int report_fd) {
  auto args = c_argv(argv);
  execvp(args[0], args.data());
  char message[32];
  int n = snprintf(message, sizeof message, "\x01" "exec:%d", errno);
  if (report_fd >= 0 && n > 0) (void)!write(report_fd, message, static_cast<size_t>(n));
  _exit(127);
}

Result<Finished> run_with(const std::vector<std::string>& argv, const std::string& cwd,
                          const std::string& stdout_path) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return sys_error("create a pipe to run " + argv[0]);
  int out_fd = -1;
  if (!stdout_path.empty()) {
    out_fd = open(stdout_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (out_fd < 0) return sys_error("create the output file of " + argv[0], stdout_path);
  }
  pid_t pid = fork();
  if (pid < 0) return sys_error("fork to run " + argv[0]);
  if (pid == 0) {
    int null_fd = open("/dev/null", O_RDONLY);
    dup2(null_fd, 0);
    dup2(out_fd >= 0 ? out_fd : fds[1], 1);
    dup2(fds[1], 2);
    if (!cwd.empty() && chdir(cwd.c_str()) != 0) _exit(127);
    exec_or_report(argv, 2);
  }
  close(fds[1]);
  if (out_fd >= 0) close(out_fd);
  Finished done;
  char buffer[4096];
  ssize_t n;
  while ((n = read(fds[0], buffer, sizeof buffer)) > 0 || (n < 0 && errno == EINTR)) {
    if (n > 0) done.output.append(buffer, static_cast<size_t>(n));
  }
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  done.exit_code = decode_status(status);
  if (auto at = done.output.find("\x01" "exec:"); done.exit_code == 127 && at != std::string::npos) {
    int err = std::atoi(done.output.c_str() + at + 6);
    return std::unexpected(Error{"run " + argv[0], err, {}, "is it installed? scripts/install-deps.sh installs it"});
  }
  return done;
}

}  // namespace

Result<Finished> run_program(const std::vector<std::string>& argv, const std::string& cwd) {
  return run_with(argv, cwd, {});
}

Result<Finished> run_program_to_file(const std::vector<std::string>& argv,
                                     const std::string& stdout_path) {
  return run_with(argv, {}, stdout_path);
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

bool on_path(const std::string& name) {
  if (name.find('/') != std::string::npos) return access(name.c_str(), X_OK) == 0;
  const char* path = getenv("PATH");
  std::string dirs = path ? path : "/usr/bin:/bin";
  size_t start = 0;
  while (start <= dirs.size()) {
    size_t end = dirs.find(':', start);
    if (end == std::string::npos) end = dirs.size();
    std::string candidate = dirs.substr(start, end - start) + "/" + name;
    struct stat st;
    if (stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(candidate.c_str(), X_OK) == 0)
      return true;
    start = end + 1;
  }
  return false;
}

Result<Child> Child::start(const std::vector<std::string>& argv, bool stdout_to_stderr) {
  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0) return sys_error("fork to run " + argv[0]);
  if (pid == 0) {
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);  // cgmem died before prctl took effect
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    int null_fd = open("/dev/null", O_RDONLY);
    dup2(null_fd, 0);
    if (stdout_to_stderr) dup2(2, 1);
    exec_or_report(argv, -1);
  }
  setpgid(pid, pid);  // also from the parent, so no ^C can reach it before exec
  return Child(pid);
}

Child::~Child() {
  if (pid_ > 0) stop(std::chrono::milliseconds(0));
}

std::optional<int> Child::wait_for(std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (pid_ > 0) {
    int status = 0;
    pid_t r = waitpid(pid_, &status, WNOHANG);
    if (r == pid_) {
      pid_ = -1;
      return decode_status(status);
    }
    if (r < 0 && errno != EINTR) {
      pid_ = -1;
      return 255;
    }
    if (std::chrono::steady_clock::now() >= deadline) return std::nullopt;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return std::nullopt;
}

int Child::stop(std::chrono::milliseconds grace) {
  if (pid_ <= 0) return 255;
  pid_t pid = pid_;
  if (grace.count() > 0) {
    kill(pid, SIGTERM);
    if (auto code = wait_for(grace)) return *code;
  }
  kill(pid, SIGKILL);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  pid_ = -1;
  return decode_status(status);
}

}  // namespace cgmem::vm
