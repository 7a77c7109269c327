// A batch on several kernels ([[kernels]] in the spec, docs/matrix.md): one
// VM session per kernel, one after another, each booting its kernel once
// and running all of that kernel's runs inside. Each session's batch is a
// batch of one kernel, laid out as any (BATCH/LABEL/batch.json and
// BATCH/LABEL/WORKLOAD-CONFIG-rN); BATCH/batch.json is the index of them:
//
//   {"schema": 1, "name", "spec", "claim", "claim_sha256", "started_at", "updated_at", "code",
//    "kernels": [{"label", "name", "stock_slots", "dir", "state", "exit_code"}],
//    "runs": [{"dir": "LABEL/NAME", "kernel": "LABEL", "config", ...}]}
//
// A kernel's state: "finished" (its session ended with exit code 0),
// "finished before" (on --resume, every run had its outcome.json), "stopped"
// (its session ended otherwise: interrupted, refused, failed) or "not
// started". The batch stops at the first session that does not end with 0,
// as a batch of one kernel stops at an interrupted run; --resume goes on.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "common/error.h"
#include "matrix/batch.h"
#include "matrix/spec.h"

namespace cgmem::matrix {

// One kernel's session: the VM (`cgmem vm --kernel NAME`) running the
// matrix for that kernel's runs into `dir`, going on with the batch there
// when `resume`. Returns the session's exit code.
class SessionRunner {
 public:
  virtual ~SessionRunner() = default;
  virtual int run(const KernelSpec& kernel, const std::string& dir, bool resume) = 0;
};

struct KernelSession {
  std::string label, dir, state;
  int exit_code = 0;
};

struct KernelBatchResult {
  std::vector<KernelSession> sessions;
  int exit_code = 0;  // the first session's that was not 0, else 0
};

// Runs each kernel's session in the spec's order. `say` gets a line per
// kernel skipped on --resume. Refuses a directory that holds a batch
// without --resume, or that is not empty and holds none, and on --resume a
// claim that changed since the batch started.
Result<KernelBatchResult> run_kernel_sessions(const MatrixSpec& spec, const MatrixOptions& options,
                                              SessionRunner& runner, const std::function<void(const std::string&)>& say);

}  // namespace cgmem::matrix
