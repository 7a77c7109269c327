#include "matrix/launch_run.h"

#include <fmt/format.h>

#include <filesystem>

#include "common/clock.h"
#include "run_format/run_format.h"

namespace cgmem::matrix {

namespace fs = std::filesystem;

Result<void> clear_earlier_attempt(const RunRecord& rec, ProgressPrinter& progress) {
  std::error_code ec;
  if (!fs::exists(fs::symlink_status(rec.dir, ec))) return {};
  progress.line(fmt::format("matrix: {} did not finish before; running it again", rec.name));
  return remove_unfinished(rec.dir);
}

Result<int> launch_run(const PlannedRun& run, RunRecord& rec, Launcher& launcher, const std::function<void()>& tick,
                       const std::optional<std::string>& claim) {
  double started = now_s();
  auto code = launcher.launch(run_arguments(run, rec.dir), tick);
  if (!code) return code;
  rec.exit_code = *code;
  rec.seconds = now_s() - started;
  bool finished = fs::exists(fs::path(rec.dir) / run_format::kOutcomeFile);
  rec.state = finished ? "finished" : "unfinished";
  rec.status = finished ? outcome_status(rec.dir) : "";
  if (claim && fs::exists(fs::path(rec.dir) / run_format::kMetaFile))
    if (auto r = record_claim(rec.dir, *claim); !r) return std::unexpected(r.error());
  return code;
}

}  // namespace cgmem::matrix
