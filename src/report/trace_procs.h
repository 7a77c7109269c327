// The throttle per process: one row per task that had a high_penalty, with
// its sleeps, the pages it wrote per sleep over its throttled window (its
// ops in ops.jsonl that returned after its first sleep began, each one
// chunk of the workload's, or one page after it set its own memory.high)
// and its time asleep (the sum of its high_sleep lines' slept_ns). A task
// that serves its pages from the cgroup's charge stock while another one
// sleeps writes more pages per sleep than a task alone.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "report/run.h"

namespace cgmem::report {

struct ProcessRow {
  int32_t pid = 0;
  std::string comm;                       // of its last high_penalty
  uint64_t sleeps = 0;                    // high_penalty lines that sleep
  uint64_t ops = 0;                       // its lines in ops.jsonl that returned after its first sleep began
  uint64_t pages = 0;                     // written by those ops
  std::optional<double> pages_per_sleep;  // empty without a sleep or without ops of this pid
  double asleep_s = 0;
};

// By pid; `run.trace` must be set.
std::vector<ProcessRow> per_process(const Run& run);

}  // namespace cgmem::report
