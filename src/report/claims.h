// The study's claims, checked against this batch: one row per claim of
// "memory.high vs memory.max, measured", with the study's figure, this
// batch's figure and a verdict. Every figure comes from the report's
// summaries (summary.h) and predictions (predict.h); which runs a claim
// reads is decided from each run's meta.json (limits, workload options,
// --neighbour), not from its name, so any batch can be checked.
//
// Where this kernel differs from the study's by design, the row says so and
// gives the comparison that allows for it:
//   - HZ (the study ran at 1000; Debian's 6.12 cloud kernel at 250): the
//     timer wheel's steps are 4 times longer in ms, so each sleep overshoots
//     the formula more; the ratio with half a step added is the comparison.
//   - 6.12's extra high event: rises of 17k + 1 (one reclaim pass that did
//     not sleep) are read as k sleeps (RunPrediction::sleeps_one_over).
//   - software emulation (TCG): touching memory is about 10 times slower, so
//     the program's own time is no longer small next to the sleeps; it is
//     added to the model where it matters.
// docs/report.md ("claims.md") lists each claim's runs, figure and test.
#pragma once

#include <string>
#include <vector>

#include "report/predict.h"
#include "report/run.h"
#include "report/summary.h"
#include "report/trace_report.h"

namespace cgmem::report {

enum class ClaimVerdict { reproduced, not_reproduced, not_tested };

// "reproduced", "not reproduced", "not tested by this batch".
const char* verdict_text(ClaimVerdict v);

struct Claim {
  std::string id;     // stable key for report.json: "max-kills", ...
  std::string claim;  // the study's claim in one sentence
  std::string study;  // the study's figure
  std::string batch;  // this batch's figure; "-" when no run tests it
  ClaimVerdict verdict = ClaimVerdict::not_tested;
  // How this kernel differs by design and the corrected comparison; the
  // test that decided; or, when not tested, the run that would test it.
  std::string note;
};

// A traced run's trace report, parallel to the runs (empty for a run not traced).
using RunTraces = std::vector<std::optional<TraceReport>>;

// runs, sums, preds and traces are parallel (one entry per run, in the
// same order). With `kernel`, only the runs of that kernel (Run::kernel)
// count. Without `traces` no claim reads a trace.
std::vector<Claim> check_claims(const std::vector<Run>& runs, const std::vector<RunSummary>& sums,
                                const std::vector<RunPrediction>& preds, const std::string* kernel = nullptr,
                                const RunTraces* traces = nullptr);

}  // namespace cgmem::report
