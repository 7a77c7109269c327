// `cgmem matrix` as a library call: run every planned run that has not
// finished, each in its own run directory BATCH/NAME (and cgroup NAME),
// keeping BATCH/batch.json up to date (docs/matrix.md).
//
// Resumable: a run whose outcome.json exists is skipped; a run directory
// without one (the driver died) is removed and the run starts again.
// Pre-registration: with a claim file, its sha256 is recorded in batch.json
// when the batch starts and in every run's meta.json; before each run the
// file is hashed again and the batch stops if it changed.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/error.h"
#include "lab/matrix/launcher.h"
#include "lab/matrix/plan.h"
#include "lab/matrix/progress.h"
#include "lab/matrix/spec.h"

namespace cgmem::lab {

struct MatrixOptions {
  std::string out_dir;    // the batch directory
  bool resume = false;    // go on with a batch that batch.json says was started
  PlanOptions plan;
  nlohmann::json code;    // this binary's identity: version, git_commit, binary_hash
};

struct RunRecord {
  std::string name, config, workload, dir;
  int rep = 1;
  std::string state;      // "finished before" (skipped), "finished", "unfinished"
  std::string status;     // outcome.json's status, if any
  int exit_code = 0;
  double seconds = 0;
};

struct MatrixResult {
  std::string batch_dir;
  std::vector<RunRecord> runs;
  size_t ran = 0, skipped = 0;
  bool interrupted = false;   // a run ended by SIGINT/SIGTERM: the batch stopped there
  std::vector<std::string> notes;
};

Result<MatrixResult> run_matrix(const MatrixSpec& spec, const MatrixOptions& options, Launcher& launcher,
                                ProgressPrinter& progress);

// Sets meta.json's claim_sha256 in a run directory (written to a temporary
// name, then renamed) when the run driver left it empty.
Result<void> record_claim(const std::string& run_dir, const std::string& claim_sha256);

}  // namespace cgmem::lab
