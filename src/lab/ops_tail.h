// Follows ops.jsonl while the workload appends to it: each scan() reads the
// whole lines added since the last one (pread into a fixed buffer) and
// reports each line's lat_ns. For the driver's once-a-second progress line
// and the final op count; allocates nothing after open.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "common/error.h"

namespace cgmem::lab {

class OpsTail {
 public:
  explicit OpsTail(int fd) : fd_(fd) {}

  struct Scan {
    uint64_t lines = 0;
    uint64_t slowest_lat_ns = 0;
  };
  // Reads what was appended since the last scan; a line still being written
  // (no '\n' yet) waits for the next scan.
  Scan scan();

  uint64_t total_lines() const { return total_; }

 private:
  int fd_;
  uint64_t offset_ = 0;
  uint64_t total_ = 0;
  std::array<char, 65536> buffer_{};
};

// The value of "lat_ns" in one op line, 0 when absent.
uint64_t lat_ns_of(std::string_view line);

}  // namespace cgmem::lab
