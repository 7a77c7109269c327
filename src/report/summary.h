// The summary: the study's outcome columns for each run, and per config and
// workload the range across repetitions (docs/report.md, "summary.md").
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "report/run.h"
#include "report/stats.h"

namespace cgmem::report {

struct RunSummary {
  std::string name, config, workload, dir;
  int rep = 0;
  bool finished = false;        // outcome.json present
  std::string status;           // outcome status, or "unfinished"
  bool killed = false;          // OOM-killed (status oom_killed or oom_kill > 0)
  std::optional<double> time_to_kill_s;
  double duration_s = 0;        // outcome duration, or last op/sample time
  std::optional<double> peak_bytes, final_bytes;  // memory.current
  std::optional<double> median_op_ms, p99_last10_ms;
  std::optional<double> median_last10_ms;  // a throttle slows every op; one slow op is not one
  std::optional<double> median_churn_ms;  // the churn phase's ops alone (the study's "median churn op")
  uint64_t ops = 0;
  uint64_t events_high = 0, events_max = 0, events_oom_kill = 0;
  std::optional<double> psi_memory_some_s, psi_memory_full_s, psi_io_some_s;
  std::optional<double> pgsteal, rbytes, cpu_s;
  std::optional<double> state_d_share;  // of process samples
  std::string top_wchan;                // most common non-empty wchan
  uint64_t truncated_lines = 0, bad_lines = 0;
};

RunSummary summarize(const Run& run);

// The runs of one config and workload, with the range of each column.
struct GroupSummary {
  std::string config, workload;
  int runs = 0, finished = 0, killed = 0, capped = 0, exited = 0;
  Range cap_s;  // durations of the runs stopped at their cap
  Range time_to_kill_s, duration_s, peak_bytes, final_bytes, median_op_ms, p99_last10_ms;
  Range events_high, events_max, events_oom_kill;
  Range psi_memory_some_s, psi_memory_full_s, psi_io_some_s, pgsteal, rbytes, cpu_s;
  Range state_d_share;
  std::vector<std::string> wchans;  // each run's most common wchan
};

// Groups in first-seen order of workload, then config in the order
// none, max, high, both, then any other.
std::vector<GroupSummary> group(const std::vector<RunSummary>& runs);

}  // namespace cgmem::report
