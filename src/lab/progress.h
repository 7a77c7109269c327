// The driver's once-a-second line, like the study's systemd demo:
//   cgmem run:  12.0s  current 30.1MiB  slowest op 2047.9ms  high 1234  max 0
// "slowest op" is the longest lat_ns among the ops logged in that second
// ("-" when none was). It goes to a sink (cmd_run: stderr); --quiet gives none.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "common/fd.h"
#include "common/sink.h"
#include "lab/ops_tail.h"
#include "lab/sampler.h"

namespace cgmem::lab {

// One progress line's text (without the newline).
std::string progress_line(double elapsed_s, const TickSummary& tick, uint64_t ops_in_second,
                          uint64_t slowest_lat_ns);

class Progress {
 public:
  // An empty sink: no lines, and ops.jsonl is not read.
  Progress(LineSink sink, const std::string& ops_path, uint64_t started_ns);
  // Called every tick; gives a line when a second has passed since the last one.
  void update(uint64_t now_ns, const TickSummary& tick);

 private:
  LineSink sink_;
  Fd fd_;  // ops.jsonl
  std::unique_ptr<OpsTail> tail_;
  uint64_t started_ns_;
  uint64_t next_ns_;
};

}  // namespace cgmem::lab
