// /proc/PID/stat: the fields the sampler records per process.
//
//   158 (w) D 1 0 0 0 -1 4194304 8418 58 0 0 20 56 0 18 20 0 1 0 558 ...
//
// Field 2, comm, is in parentheses and may itself contain spaces and ')'
// ("(a) b)" is a valid comm), so the fields after it are counted from the
// LAST ')' in the line. Fields (1-based, proc(5)): 3 state, 14 utime,
// 15 stime (clock ticks, USER_HZ), 39 processor.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string_view>

#include "common/error.h"

namespace cgmem::proc {

struct ProcStat {
  pid_t pid = 0;
  std::string_view comm;  // points into the parsed text
  char state = '?';       // R S D Z T t X I ...
  uint64_t utime_ticks = 0, stime_ticks = 0;
  int processor = -1;     // the CPU it last ran on
};

// Allocation-free on success (comm is a view into text).
Result<ProcStat> parse_proc_stat(std::string_view text, std::string_view source = "stat");

}  // namespace cgmem::proc
