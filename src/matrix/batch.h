// The state of a batch on disk: BATCH/batch.json, started once and saved
// after every run, and for each planned run whether its outcome.json says it
// finished (docs/matrix.md). The claim's hash is checked against it.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "common/error.h"
#include "matrix/plan.h"
#include "matrix/spec.h"

namespace cgmem::matrix {

struct MatrixOptions {
  std::string out_dir;    // the batch directory
  bool resume = false;    // go on with a batch that batch.json says was started
  PlanOptions plan;
  nlohmann::json code;    // this binary's identity: version, git_commit, binary_hash
  nlohmann::json host;    // where it runs: hostname, kernel, cpus, hz, virtualized (batch.json's "host")
};

struct RunRecord {
  std::string name, config, workload, dir;
  std::string kernel;     // the kernel's label; empty when the spec names none
  int rep = 1;
  std::string state;      // "finished before" (skipped), "finished", "unfinished"
  std::string status;     // outcome.json's status, if any
  int exit_code = 0;
  double seconds = 0;
};

// batch.json: the record the batch started with, and its runs as they stand.
struct Batch {
  std::string dir;
  nlohmann::json json;
  Result<void> save(const std::vector<RunRecord>& runs);
};

// A kernel as batch.json records it: {"label", "name", "stock_slots"} (null
// when not set at boot).
nlohmann::json kernel_json(const KernelSpec& kernel);

// The kernel a batch's runs are planned for (options.kernel, or the spec's
// only one); nullptr when the spec names none.
const KernelSpec* planned_kernel(const MatrixSpec& spec, const PlanOptions& options);

// Starts batch.json in a new or empty directory, or with --resume reads back
// the one there (refused when the claim changed since; a note when the build did).
Result<Batch> open_batch(const MatrixSpec& spec, const MatrixOptions& options,
                         const std::optional<std::string>& claim, std::vector<std::string>& notes);

// A record per planned run in BATCH/NAME: "finished before" when its
// outcome.json exists, else "unfinished".
std::vector<RunRecord> run_records(const std::vector<PlannedRun>& runs, const std::string& batch_dir);

// Removes what an unfinished run left, only when it is a run directory of
// this batch: a real directory (not a link) that is empty or holds a cgmem
// meta.json. Anything else is the user's and stays.
Result<void> remove_unfinished(const std::string& run_dir);

// outcome.json's status in a run directory; "" when there is none.
std::string outcome_status(const std::string& run_dir);

// An error when the claim file no longer hashes to `recorded`.
Result<void> check_claim(const MatrixSpec& spec, const std::optional<std::string>& recorded);

// Sets meta.json's claim_sha256 in a run directory (written to a temporary
// name, then renamed) when the run driver left it empty.
Result<void> record_claim(const std::string& run_dir, const std::string& claim_sha256);

// A batch resumed in the VM comes back beside the host batch: moves each
// entry of `from_dir` (runs, batch.json) into `into_dir`. An entry that is
// there already is swapped (one rename, RENAME_EXCHANGE) and only then is
// the old one removed, so a failure leaves one whole copy of every run;
// `from_dir` is removed only when all of it moved.
Result<void> merge_resumed_batch(const std::string& from_dir, const std::string& into_dir);

}  // namespace cgmem::matrix
