#include "matrix/runner.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "common/exit_codes.h"
#include "matrix/launch_run.h"
#include "common/sha256.h"
#include "run_format/run_format.h"

namespace cgmem::matrix {

Result<std::optional<std::string>> claim_hash(const MatrixSpec& spec) {
  if (!spec.claim) return std::nullopt;
  auto hash = sha256_file(*spec.claim);
  if (!hash) return std::unexpected(hash.error());
  return *hash;
}

namespace {

namespace fs = std::filesystem;

double unfinished_caps(const std::vector<PlannedRun>& runs, const std::vector<RunRecord>& records) {
  double caps = 0;
  for (size_t i = 0; i < runs.size(); ++i)
    if (records[i].state == "unfinished") caps += runs[i].cap_s;
  return caps;
}

// After a run: the batch stops when it was interrupted (true), and fails
// when `cgmem run` refused it (the same refusal would follow for the rest).
Result<bool> stop_after(int code, const RunRecord& rec) {
  if (code == kInterrupted || run_format::parse_status(rec.status) == run_format::Status::interrupted) return true;
  if (rec.state == "unfinished" && (code == kUsage || code == kUnavailable))
    return fail(fmt::format("matrix: `cgmem run` refused {} (exit code {}); its message is above", rec.name, code),
                rec.dir, "fix the spec or the host, then rerun with --resume");
  return false;
}

}  // namespace

Result<MatrixResult> run_matrix(const MatrixSpec& spec, const MatrixOptions& o, Launcher& launcher,
                                ProgressPrinter& progress) {
  MatrixResult result{.batch_dir = o.out_dir};
  auto claim = claim_hash(spec);
  if (!claim) return std::unexpected(claim.error());
  auto batch = open_batch(spec, o, *claim, result.notes);
  if (!batch) return std::unexpected(batch.error());
  PlanOptions po = o.plan;
  po.batch_dir = fs::absolute(o.out_dir).lexically_normal().string();
  auto runs = plan(spec, po);
  result.runs = run_records(runs, po.batch_dir);
  if (auto s = batch->save(result.runs); !s) return std::unexpected(s.error());

  std::error_code scratch_ec;
  fs::create_directories(scratch_dir(po.batch_dir), scratch_ec);
  BatchProgress timing(progress, runs.size(), unfinished_caps(runs, result.runs));
  for (size_t i = 0; i < runs.size(); ++i) {
    RunRecord& rec = result.runs[i];
    if (rec.state == "finished before") {
      ++result.skipped;
      continue;
    }
    if (auto c = check_claim(spec, *claim); !c) return std::unexpected(c.error());
    if (auto cleared = clear_earlier_attempt(rec, progress); !cleared) return std::unexpected(cleared.error());
    auto code = launch_run(runs[i], rec, launcher, timing.start(i + 1, rec.name, runs[i].cap_s), *claim);
    if (!code) return std::unexpected(code.error());
    ++result.ran;
    timing.finish(rec.status, rec.seconds);
    if (auto s = batch->save(result.runs); !s) return std::unexpected(s.error());
    auto stop = stop_after(*code, rec);
    if (!stop) return std::unexpected(stop.error());
    if (*stop) {
      result.interrupted = true;
      break;
    }
  }
  bool all_finished = std::all_of(result.runs.begin(), result.runs.end(),
                                  [](const RunRecord& r) { return r.state != "unfinished"; });
  if (all_finished) fs::remove_all(scratch_dir(po.batch_dir), scratch_ec);
  return result;
}

}  // namespace cgmem::matrix
