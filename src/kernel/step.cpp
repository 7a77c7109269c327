#include "kernel/step.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <optional>
#include <sstream>
#include <thread>

namespace cgmem::kernel {

namespace {

std::optional<int> exit_code(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return std::nullopt;
}

// Ends the step's process group: SIGTERM, then SIGKILL after a grace period.
void end_group(pid_t pid) {
  kill(-pid, SIGTERM);
  for (int i = 0; i < 20; ++i) {
    int status = 0;
    if (waitpid(pid, &status, WNOHANG) == pid) {
      kill(-pid, SIGKILL);  // make's children, if any outlived it
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  kill(-pid, SIGKILL);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
}

}  // namespace

Result<int> run_step(const StepRun& step) {
  int log = open(step.log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (log < 0) return sys_error("open the build log", step.log);
  std::string header = "\n$";
  for (const auto& word : step.argv) header += " " + word;
  header += "\n";
  (void)!write(log, header.data(), header.size());
  std::vector<char*> argv;
  for (const auto& word : step.argv) argv.push_back(const_cast<char*>(word.c_str()));
  argv.push_back(nullptr);
  pid_t pid = fork();
  if (pid < 0) {
    close(log);
    return sys_error("start " + step.argv[0]);
  }
  if (pid == 0) {
    setpgid(0, 0);
    int null_fd = open("/dev/null", O_RDONLY);
    dup2(null_fd, 0);
    dup2(log, 1);
    dup2(log, 2);
    if (!step.cwd.empty() && chdir(step.cwd.c_str()) != 0) _exit(126);
    execvp(argv[0], argv.data());
    _exit(127);
  }
  close(log);
  setpgid(pid, pid);  // both sides set it, so no race with a stop
  auto last_tick = std::chrono::steady_clock::now();
  while (true) {
    int status = 0;
    pid_t got = waitpid(pid, &status, WNOHANG);
    if (got == pid) {
      if (auto code = exit_code(status)) return *code;
      continue;
    }
    if (got < 0 && errno != EINTR) return sys_error("wait for " + step.argv[0]);
    if (step.stop && *step.stop) {
      end_group(pid);
      return 128 + SIGINT;
    }
    if (step.tick && std::chrono::steady_clock::now() - last_tick >= std::chrono::seconds(1)) {
      step.tick();
      last_tick = std::chrono::steady_clock::now();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

std::string error_lines(const std::string& log_text, size_t max_lines) {
  std::istringstream in(log_text);
  std::vector<std::string> errors;
  std::string line, last;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    last = line;
    if (line.find("error:") != std::string::npos || line.find("Error ") != std::string::npos ||
        line.find("*** ") != std::string::npos || line.find("No such file") != std::string::npos ||
        line.find("FAILED") != std::string::npos || line.find("failed") != std::string::npos)
      errors.push_back(line);
  }
  if (errors.empty()) return last;
  if (errors.size() > max_lines) errors.erase(errors.begin(), errors.end() - static_cast<long>(max_lines));
  std::string out;
  for (const auto& e : errors) out += (out.empty() ? "" : " | ") + e;
  return out;
}

}  // namespace cgmem::kernel
