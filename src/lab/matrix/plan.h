// A spec expanded into the list of runs, in the order they will run.
//
// fixed: repetition by repetition, and within one, workload by workload in
// the spec's order, each under its configs in the spec's order (the study's
// order). shuffle: the same list in an order drawn from --seed
// (Fisher-Yates on splitmix64, so a seed gives the same order everywhere).
#pragma once

#include <string>
#include <vector>

#include "lab/matrix/spec.h"

namespace cgmem::lab {

struct PlannedRun {
  std::string name;  // WORKLOAD-CONFIG-rREP: the run directory and cgroup name
  std::string config, workload;
  int rep = 1;
  RunFlags flags;                         // merged: defaults, config, workload
  std::vector<std::string> workload_args; // {batch} and {scratch} replaced
  std::vector<std::string> command, load; // a --command run's program and load generator, replaced too
  double cap_s = 60;                      // for the ETA (cgmem run's default cap is 60 s)
};

struct PlanOptions {
  std::optional<int> reps;     // --reps: overrides the spec's (a workload's own reps stay)
  std::optional<bool> shuffle; // --order
  std::optional<uint64_t> seed;
  std::string batch_dir;       // replaces {batch} in workload args
};

// Where {scratch} points: BATCH/scratch, for files a workload needs (a page
// cache workload's data file) that are not results. The runner creates it
// and removes it when every run has finished.
std::string scratch_dir(const std::string& batch_dir);

std::vector<PlannedRun> plan(const MatrixSpec& spec, const PlanOptions& options);

// `cgmem run` arguments for one run: --name, --out, the flags, --quiet, --, the workload's;
// for a command: ... --quiet --command -- COMMAND [--load -- LOAD].
std::vector<std::string> run_arguments(const PlannedRun& run, const std::string& run_dir);

}  // namespace cgmem::lab
