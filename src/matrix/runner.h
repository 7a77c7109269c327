// `cgmem matrix` as a library call: run every planned run that has not
// finished, each in its own run directory BATCH/NAME (and cgroup NAME),
// keeping BATCH/batch.json up to date (docs/matrix.md).
//
// Resumable: a run whose outcome.json exists is skipped; a run directory
// without one (the driver died) is removed and the run starts again.
// Pre-registration: with a claim file, its sha256 is recorded in batch.json
// when the batch starts and in every run's meta.json; before each run the
// file is hashed again and the batch stops if it changed.
//
// The parts: batch.h (the state on disk), launch_run.h (one run),
// progress.h (the line and the ETA); this file only puts them in order.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "common/error.h"
#include "matrix/batch.h"
#include "matrix/launcher.h"
#include "matrix/plan.h"
#include "matrix/progress.h"
#include "matrix/spec.h"

namespace cgmem::matrix {

struct MatrixResult {
  std::string batch_dir;
  std::vector<RunRecord> runs;
  size_t ran = 0, skipped = 0;
  bool interrupted = false;   // a run ended by SIGINT/SIGTERM: the batch stopped there
  std::vector<std::string> notes;
};

// The sha256 of the spec's claim file, if it names one; an error naming the
// file when it cannot be read. The CLI calls it before it looks at the host,
// so a spec's own mistake is reported first.
Result<std::optional<std::string>> claim_hash(const MatrixSpec& spec);

Result<MatrixResult> run_matrix(const MatrixSpec& spec, const MatrixOptions& options, Launcher& launcher,
                                ProgressPrinter& progress);

}  // namespace cgmem::matrix
