// The load generator's stdout, timed: the driver reads it through a pipe
// between sampler ticks, appends the bytes unchanged to load.stdout and
// notes in load.times.jsonl when they came, one line per read:
//   {"t_ns":1234567890,"bytes":4096}
// t_ns since the program started, bytes the size of load.stdout after the
// read. The report gives each output line the time of the first read that
// reached its end, so a load that prints one line per round (redis-benchmark
// -l --csv) gives throughput and latency against time.
#pragma once

#include <array>
#include <cstdint>

#include "common/error.h"
#include "common/fd.h"

namespace cgmem::lab {

class LoadPipe {
 public:
  // Opens the pipe; out_fd and times_fd are the run directory's files (the
  // caller closes them).
  static Result<LoadPipe> open(int out_fd, int times_fd);

  int write_end() const { return write_.get(); }
  // After the load started: the driver keeps only the read end, so EOF comes
  // when the load (and whatever it started) has closed its stdout.
  void close_write_end();
  // Readable when output arrives (-1 once closed): the driver's sleep wakes on it.
  int read_fd() const { return read_.get(); }
  // Copies what is there now; `since_ns` is the program's start.
  void drain(uint64_t now_ns, uint64_t since_ns);

 private:
  LoadPipe(Fd read, Fd write, int out_fd, int times_fd)
      : read_(std::move(read)), write_(std::move(write)), out_fd_(out_fd), times_fd_(times_fd) {}
  Fd read_, write_;
  int out_fd_ = -1, times_fd_ = -1;
  uint64_t bytes_ = 0;
  std::array<char, 65536> buffer_{};
};

}  // namespace cgmem::lab
