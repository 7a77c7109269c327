#include "lab/load_pipe.h"

#include <fcntl.h>
#include <unistd.h>

#include <fmt/format.h>

namespace cgmem::lab {

Result<LoadPipe> LoadPipe::open(int out_fd, int times_fd) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return sys_error("--load: create the pipe for its output");
  Fd read(fds[0]), write(fds[1]);
  // Only the read end is non-blocking: the load writes as it always does.
  if (::fcntl(read.get(), F_SETFL, O_NONBLOCK) != 0) return sys_error("--load: make its output pipe non-blocking");
  return LoadPipe(std::move(read), std::move(write), out_fd, times_fd);
}

void LoadPipe::close_write_end() { write_.reset(); }

void LoadPipe::drain(uint64_t now_ns, uint64_t since_ns) {
  if (!read_.valid()) return;
  uint64_t before = bytes_;
  for (;;) {
    ssize_t n = ::read(read_.get(), buffer_.data(), buffer_.size());
    if (n == 0) {  // EOF: nothing more will come
      read_.reset();
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
