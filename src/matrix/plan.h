// A spec expanded into the list of runs, in the order they will run.
//
// fixed: repetition by repetition, and within one, workload by workload in
// the spec's order, each under its configs in the spec's order (the study's
// order). shuffle: the same list in an order drawn from --seed
// (Fisher-Yates on splitmix64, so a seed gives the same order everywhere).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/error.h"
#include "matrix/spec.h"

namespace cgmem::matrix {

struct PlannedRun {
  std::string name;  // WORKLOAD-CONFIG-rREP: the run directory and cgroup name
  std::string config, workload;
  std::string kernel;                     // the kernel's label; empty when the spec names none
  int rep = 1;
  RunFlags flags;                         // merged: defaults, config, workload
  std::vector<std::string> workload_args; // {batch} and {scratch} replaced
  std::vector<std::string> command, load; // a --command run's program and load generator, replaced too
  double cap_s = 60;                      // for the ETA (cgmem run's default cap is 60 s)
};

// `--shard K/N`: a stable part of a plan, for a study spread over hosts.
// A run belongs to shard K when its place in the spec's own order
// (repetition, workload, config: the fixed order, before any shuffle) is
// K-1 modulo N, so every run is in exactly one shard, the shards differ by
// one run at most, and every host splits the same spec the same way
// whatever its --order or --seed.
struct Shard {
  int index = 1, count = 1;  // 1 <= index <= count
  bool whole() const { return count == 1; }
  std::string text() const;  // "K/N"
};
// "K/N" with 1 <= K <= N <= 10000.
Result<Shard> parse_shard(std::string_view text);

struct PlanOptions {
  std::optional<int> reps;     // --reps: overrides the spec's (a workload's own reps stay)
  std::optional<bool> shuffle; // --order
  std::optional<uint64_t> seed;
  std::string batch_dir;       // replaces {batch} in workload args
  std::string build_root;      // {build} is BUILD_ROOT/WORKLOAD; empty: BATCH/build
  std::string kernel;          // plan this kernel's runs (a label); empty: the spec's only kernel, if any
  Shard shard;                 // --shard: this part of each kernel's runs
};

// Where the runs of the kernel labelled `label` go: the batch directory
// itself when the spec names one kernel or none (a batch laid out as
// before kernels could be listed), else BATCH/LABEL, one batch per kernel.
std::string kernel_batch_dir(const MatrixSpec& spec, const std::string& batch_dir, const std::string& label);

// {scratch} and {batch} replaced (and {build}, when `build` is not empty).
std::string substitute(const std::string& text, const std::string& batch_dir, const std::string& build = {});

// Where a workload's `build` writes and {build} points (build.h).
std::string workload_build_dir(const PlanOptions& o, const std::string& workload);

// Where {scratch} points: BATCH/scratch, for files a workload needs (a page
// cache workload's data file) that are not results. The runner creates it
// and removes it when every run has finished.
std::string scratch_dir(const std::string& batch_dir);

// The runs of one kernel (options.kernel), or of a spec of one kernel or
// none; of options.shard only.
std::vector<PlannedRun> plan(const MatrixSpec& spec, const PlanOptions& options);

// Every kernel's runs, kernel by kernel in the spec's order; {batch} of each
// is its kernel_batch_dir.
std::vector<PlannedRun> plan_all(const MatrixSpec& spec, const PlanOptions& options);

// `cgmem run` arguments for one run: --name, --out, the flags, --quiet, --, the workload's;
// for a command: ... --quiet --command -- COMMAND [--load -- LOAD].
std::vector<std::string> run_arguments(const PlannedRun& run, const std::string& run_dir);

}  // namespace cgmem::matrix
