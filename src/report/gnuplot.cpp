#include "report/gnuplot.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <optional>

namespace cgmem::report {

namespace {

// One gnuplot in `dir` reading commands from a socket: a socket, not a pipe,
// so that writing to a gnuplot that died is an error (MSG_NOSIGNAL), not a
// SIGPIPE that would kill the report. Its output goes to `log`.
std::optional<Plotter> start(const std::string& dir, int log) {
  int fds[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) return std::nullopt;
  Fd ours(fds[0]), theirs(fds[1]);
  auto gnuplot = Process::start(
      {.argv = {"gnuplot"}, .cwd = dir, .stdin_fd = theirs.get(), .stdout_fd = log, .stderr_fd = log});
  if (!gnuplot) return std::nullopt;
  return Plotter{std::move(*gnuplot), std::move(ours)};
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
  // One log for all of them, opened for appending so none overwrites another.
  Fd log(open((std::filesystem::path(dir) / "gnuplot.log").c_str(),
              O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644));
  for (unsigned i = 0; log.valid() && i < count; ++i) {
    auto plotter = start(dir, log.get());
    if (!plotter) break;
    procs_.push_back(std::move(*plotter));
  }
  if (procs_.empty()) warning_ = "gnuplot not found, so no plots (install gnuplot-nox: scripts/install-deps.sh)";
}

Gnuplots::~Gnuplots() { finish(); }

void Gnuplots::draw(const std::string& commands, unsigned cost) {
  if (procs_.empty()) return;
  Plotter& p = *std::min_element(procs_.begin(), procs_.end(), [](auto& a, auto& b) { return a.load < b.load; });
  p.load += cost;
  if (!p.input.valid() || !send_all(p.input.get(), commands)) failed_ = true;
}

bool Gnuplots::finish(const volatile std::sig_atomic_t* stop) {
  for (Plotter& p : procs_) p.input.reset();
  for (Plotter& p : procs_) {
    while (p.process.running() && !(stop && *stop))
      if (auto code = p.process.wait_for(std::chrono::milliseconds(50))) failed_ |= *code != 0;
  }
  if (stop && *stop) {
    for (Plotter& p : procs_)
      if (p.process.running()) p.process.stop(std::chrono::milliseconds(0));
    failed_ = true;
    warning_ = "stopped by a signal; gnuplot ended";
  }
  if (failed_ && warning_.empty())
    warning_ = fmt::format("gnuplot failed; see {}", (std::filesystem::path(dir_) / "gnuplot.log").string());
  return !failed_ && !procs_.empty();
}

}  // namespace cgmem::report
