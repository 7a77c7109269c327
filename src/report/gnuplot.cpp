#include "report/gnuplot.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>

extern char** environ;

namespace cgmem::report {

namespace {

// One gnuplot in `dir` reading commands from a socket: a socket, not a pipe,
// so that writing to a gnuplot that died is an error (MSG_NOSIGNAL), not a
// SIGPIPE that would kill the report.
bool start(const std::string& dir, int& pid, int& input) {
  int fds[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) return false;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addchdir_np(&actions, dir.c_str());
  posix_spawn_file_actions_adddup2(&actions, fds[1], 0);
  posix_spawn_file_actions_addopen(&actions, 1, "gnuplot.log", O_WRONLY | O_CREAT | O_APPEND, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  std::string prog = "gnuplot";
  char* argv[] = {prog.data(), nullptr};
  int rc = posix_spawnp(&pid, "gnuplot", &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);
  if (rc != 0) {
    close(fds[0]);
    return false;
  }
  input = fds[0];
  return true;
}

bool send_all(int fd, const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = send(fd, text.data() + done, text.size() - done, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

}  // namespace

Gnuplots::Gnuplots(const std::string& dir, unsigned count) : dir_(dir) {
  int log = open((std::filesystem::path(dir) / "gnuplot.log").c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (log >= 0) close(log);  // each gnuplot appends to it
  for (unsigned i = 0; i < count; ++i) {
    Process p;
    if (!start(dir, p.pid, p.input)) break;
    procs_.push_back(p);
  }
  if (procs_.empty()) warning_ = "gnuplot not found, so no plots (install gnuplot-nox: scripts/install-deps.sh)";
}

Gnuplots::~Gnuplots() { finish(); }

void Gnuplots::draw(const std::string& commands, unsigned cost) {
  if (procs_.empty()) return;
  Process& p = *std::min_element(procs_.begin(), procs_.end(), [](auto& a, auto& b) { return a.load < b.load; });
  p.load += cost;
  if (p.input < 0 || !send_all(p.input, commands)) failed_ = true;
}

bool Gnuplots::finish() {
  for (Process& p : procs_) {
    if (p.input >= 0) close(p.input);
    p.input = -1;
  }
  for (Process& p : procs_) {
    if (p.pid < 0) continue;
    int status = 0;
    while (waitpid(p.pid, &status, 0) < 0 && errno == EINTR) {}
    p.pid = -1;
    failed_ |= !WIFEXITED(status) || WEXITSTATUS(status) != 0;
  }
  if (failed_ && warning_.empty())
    warning_ = fmt::format("gnuplot failed; see {}", (std::filesystem::path(dir_) / "gnuplot.log").string());
  return !failed_ && !procs_.empty();
}

}  // namespace cgmem::report
