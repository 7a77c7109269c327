// What a traced run's events show (`cgmem run --trace`): the attribution of
// each extra throttle sleep to what emptied the charge stock before it
// (trace_attribution.h), the split of each sleep's time (trace_split.h)
// and the throttle per process (trace_procs.h), with everything that makes
// the figures incomplete (lost events, lines not read) beside them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "report/run.h"
#include "report/trace_attribution.h"
#include "report/trace_procs.h"
#include "report/trace_split.h"

namespace cgmem::report {

struct TraceReport {
  std::string name, dir, config, workload;
  std::optional<uint64_t> events;  // what the trace writer recorded (outcome.json)
  std::optional<uint64_t> lost;    // events the kernel's buffers dropped; empty when not recorded
  std::vector<uint64_t> lost_by_cpu;
  std::vector<std::string> errors;  // the trace writer's
  uint64_t lines = 0, bad_lines = 0, truncated_lines = 0, unknown_events = 0;
  // Why a part is missing: trace.jsonl unreadable, no trace facts in
  // outcome.json (unfinished run), no run cgroup id; empty when none is.
  std::vector<std::string> problems;
  // No neighbour and the sampler on another CPU: the workload had its CPU
  // to itself, so the attribution answers "what empties the precharge" there.
  bool own_cpu = false;
  bool emulated = false;                   // software emulation (TCG)
  std::optional<Attribution> attribution;  // needs trace.jsonl and the run's cgroup id
  std::optional<SleepSplit> split;
  std::vector<ProcessRow> per_process;

  bool lossy() const { return lost.value_or(0) > 0; }
};

// Whether a run was traced: meta.json's spec.trace, outcome.json's
// "trace", or a trace.jsonl read.
bool is_traced(const Run& run);

// The run's trace report; call only for a traced run.
TraceReport analyze_trace(const Run& run);

}  // namespace cgmem::report
