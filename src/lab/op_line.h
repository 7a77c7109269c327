// One workload operation as ops.jsonl records it (docs/run-format.md):
// {"op":412,"phase":"churn","pid":311,"cpu":0,"t_ns":...,"lat_ns":...,
//  "held_bytes":...,"current_before":...,"current_after":...,
//  "high_before":...,"high_after":...,"max_before":...,"max_after":...
//  [,"swap_before":...,"swap_after":...,"swap_high_before":...,"swap_high_after":...]}
#pragma once

#include <cstdint>

#include "lab/json_line.h"
#include "run_format/run_format.h"

namespace cgmem::lab {

// memory.current and the memory.events high/max counters at one moment;
// on a host with swap also memory.swap.current and memory.swap.events high.
struct Counters {
  uint64_t current = 0;
  uint64_t high = 0;
  uint64_t max = 0;
  bool has_swap = false;
  uint64_t swap = 0;
  uint64_t swap_high = 0;
};

struct OpRecord {
  uint64_t op = 0;
  run_format::Phase phase = run_format::Phase::grow;
  int pid = 0;
  int cpu = -1;
  uint64_t t_ns = 0;
  uint64_t lat_ns = 0;
  uint64_t held_bytes = 0;
  Counters before;
  Counters after;
};

// Writes the record as one line ending in '\n' into `line` (cleared first).
void format_op_line(const OpRecord& record, JsonLine& line);

}  // namespace cgmem::lab
