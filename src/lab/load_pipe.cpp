#include "lab/load_pipe.h"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <fmt/format.h>
#include <time.h>

#include "common/clock.h"

namespace cgmem::lab {

Result<LoadPipe> LoadPipe::open(int out_fd, int times_fd) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return sys_error("--load: create the pipe for its output");
  // Only the read end is non-blocking: the load writes as it always does.
  if (::fcntl(fds[0], F_SETFL, O_NONBLOCK) != 0) {
    ::close(fds[0]), ::close(fds[1]);
    return sys_error("--load: make its output pipe non-blocking");
  }
  return LoadPipe(fds[0], fds[1], out_fd, times_fd);
}

LoadPipe::LoadPipe(LoadPipe&& o) noexcept
    : read_fd_(o.read_fd_), write_fd_(o.write_fd_), out_fd_(o.out_fd_), times_fd_(o.times_fd_), bytes_(o.bytes_) {
  o.read_fd_ = o.write_fd_ = -1;
}

LoadPipe::~LoadPipe() {
  if (read_fd_ >= 0) ::close(read_fd_);
  close_write_end();
}

void LoadPipe::close_write_end() {
  if (write_fd_ >= 0) ::close(write_fd_);
  write_fd_ = -1;
}

void LoadPipe::wait(uint64_t deadline_ns) const {
  uint64_t now = now_ns();
  if (now >= deadline_ns) return;
  uint64_t left = deadline_ns - now;
  timespec timeout{static_cast<time_t>(left / 1'000'000'000ULL), static_cast<long>(left % 1'000'000'000ULL)};
  pollfd fd{.fd = read_fd_, .events = POLLIN, .revents = 0};
  ::ppoll(&fd, read_fd_ >= 0 ? 1 : 0, &timeout, nullptr);  // EINTR: a signal, the loop looks
}

void LoadPipe::drain(uint64_t now_ns, uint64_t since_ns) {
  if (read_fd_ < 0) return;
  uint64_t before = bytes_;
  for (;;) {
    ssize_t n = ::read(read_fd_, buffer_.data(), buffer_.size());
    if (n == 0) {  // EOF: nothing more will come
      ::close(read_fd_);
      read_fd_ = -1;
      break;
    }
    if (n < 0) break;  // EAGAIN: all read for now
    for (ssize_t done = 0; done < n;) {
      ssize_t w = ::write(out_fd_, buffer_.data() + done, static_cast<size_t>(n - done));
      if (w <= 0) break;
      done += w;
    }
    bytes_ += static_cast<uint64_t>(n);
  }
  if (bytes_ == before) return;
  char line[96];
  auto end = fmt::format_to_n(line, sizeof line, "{{\"t_ns\":{},\"bytes\":{}}}\n", now_ns - since_ns, bytes_);
  ssize_t ignored = ::write(times_fd_, line, end.size);
  (void)ignored;
}

}  // namespace cgmem::lab
