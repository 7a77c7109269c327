// One run of a batch, from its place on disk to its record: what an earlier
// attempt left is cleared, `cgmem run` is started through the launcher, and
// the record says how it ended (docs/matrix.md).
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "common/error.h"
#include "matrix/batch.h"
#include "matrix/launcher.h"
#include "matrix/plan.h"
#include "matrix/progress.h"

namespace cgmem::matrix {

// A run directory without outcome.json (its driver died) is removed, with a
// line saying so, so that the run starts again from nothing.
Result<void> clear_earlier_attempt(const RunRecord& rec, ProgressPrinter& progress);

// Runs it to the end and fills rec's exit code, seconds, state and status;
// with a claim, its hash goes into the run's meta.json. Returns the exit code.
Result<int> launch_run(const PlannedRun& run, RunRecord& rec, Launcher& launcher, const std::function<void()>& tick,
                       const std::optional<std::string>& claim);

}  // namespace cgmem::matrix
