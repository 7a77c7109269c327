// The report's section for `cgmem run --command` runs (programs.md): the
// user's own program has no op lines, so everything comes from the samples,
// outcome.json and the load generator's output (load_output.h):
//
//   outcome (killed or not, when), peak against memory.high/max, memory.events,
//   PSI, the share of samples with a task in state D and the commonest wchan;
//   throttled time two ways: sampled (ticks with a task asleep in
//   mem_cgroup_handle_over_high, times the interval) and estimated from the
//   high counter (each rise of 17 is one sleep, model/penalty.h, whose length
//   the model gives at the sampled usage, no longer than the tick);
//   the load's throughput and p99 latency per config, and against time;
//   the model's verdict (model/verdict.h, as `translate --working-set`)
//   for the program's working set: the peak of its run without limits.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "report/document.h"
#include "report/load_output.h"
#include "report/run.h"

namespace cgmem::report {

// One slice of a run's time: what memory did and what the load got.
struct ProgramSlice {
  double from_s = 0, to_s = 0;
  std::optional<double> memory_max;     // the largest memory.current sampled, bytes
  uint64_t high_events = 0;             // memory.events high rise within the slice
  std::optional<double> rps, p99_ms;    // medians of the load's points that came then
};

struct ProgramRun {
  std::string name, workload, config;
  std::optional<Limit> high, max;
  std::string status;                   // outcome.json status, "unfinished" without one
  double duration_s = 0;
  std::optional<double> time_to_kill_s;
  std::optional<uint64_t> peak_bytes;
  uint64_t events_high = 0, events_max = 0, events_oom_kill = 0;
  std::optional<double> psi_some_s, psi_full_s;  // memory.pressure totals at the last sample
  uint64_t samples = 0, samples_in_d = 0;
  std::string top_wchan;                // the commonest wchan of tasks in state D
  double throttled_sampled_s = 0;       // ticks with a task in mem_cgroup_handle_over_high x interval
  double throttled_estimated_s = 0;     // high rise / 17 sleeps x the model's sleep
  std::optional<double> throttled_share;  // throttled_sampled_s over the run's duration
  // The touch pattern: pages faulted in (memory.stat pgfault, a THP fault as
  // a huge page's pages) in the ticks the high counter rose, per sleep (the
  // rise / 17). 64 is one sleep per charge batch (the per-CPU stock held),
  // 1 one per page (it was emptied each time); nullopt without a sleep.
  uint64_t sleeps = 0;
  uint64_t pages_faulted_over_high = 0;
  std::optional<double> pages_per_sleep;
  LoadOutput load;                      // its problems name load.stdout and the line
  std::string load_error;               // why load.stdout could not be read (too large, not a file, ...)
  std::optional<double> rps, p99_ms;    // medians over the load's points
  std::vector<ProgramSlice> slices;
  std::optional<uint64_t> working_set;  // the peak of this workload's run without limits
  std::string working_set_from;         // that run's name
  std::string verdict;                  // the model's one line for the working set under these limits
};

// The command runs among `runs`, with the load files read from each run
// directory (load.stdout, load.times.jsonl); `slices` time slices per run.
std::vector<ProgramRun> summarize_programs(const std::vector<Run>& runs, int slices = 10);

// Empty when there are no command runs.
std::vector<Section> program_sections(const std::vector<ProgramRun>& programs);
nlohmann::json to_json(const ProgramRun& program);

}  // namespace cgmem::report
