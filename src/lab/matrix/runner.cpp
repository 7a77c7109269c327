#include "lab/matrix/runner.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <filesystem>

#include "common/clock.h"
#include "common/exit_codes.h"
#include "common/file.h"
#include "lab/matrix/sha256.h"
#include "run_format/run_format.h"

namespace cgmem::lab {

namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

Result<Json> read_json(const fs::path& path) {
  auto text = read_file(path.string(), path.filename().string());
  if (!text) return std::unexpected(text.error());
  Json j = Json::parse(*text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return fail("read: not a JSON object", path.string(), "move the file away");
  return j;
}

Result<void> write_json(const fs::path& path, const Json& j) { return write_file_atomic(path.string(), j.dump(2) + "\n"); }

Json run_entry(const RunRecord& r) {
  return {{"dir", r.name}, {"config", r.config}, {"workload", r.workload}, {"rep", r.rep},
          {"state", r.state}, {"status", r.status.empty() ? Json(nullptr) : Json(r.status)}};
}

std::string outcome_status(const fs::path& run_dir) {
  auto j = read_json(run_dir / run_format::kOutcomeFile);
  if (!j) return "";
  auto it = j->find("status");
  return it != j->end() && it->is_string() ? it->get<std::string>() : "";
}

// The batch record: started once, updated after every run.
struct Batch {
  fs::path dir;
  Json json;
  Result<void> save(const std::vector<RunRecord>& runs) {
    json["runs"] = Json::array();
    for (const auto& r : runs) json["runs"].push_back(run_entry(r));
    json["updated_at"] = iso_utc(std::time(nullptr));
    return write_json(dir / run_format::kBatchFile, json);
  }
};

Result<Batch> open_batch(const MatrixSpec& spec, const MatrixOptions& o, const std::optional<std::string>& claim,
                         MatrixResult& result) {
  Batch b{.dir = fs::path(o.out_dir)};
  fs::path file = b.dir / run_format::kBatchFile;
  if (fs::exists(file)) {
    if (!o.resume)
      return fail("matrix: this directory already holds a batch", b.dir.string(),
                  "pass --resume to finish it, or --out another directory");
    auto old = read_json(file);
    if (!old) return std::unexpected(old.error());
    b.json = *old;
    std::string recorded = b.json.value("claim_sha256", Json()).is_string() ? b.json["claim_sha256"].get<std::string>() : "";
    if (recorded != claim.value_or(""))
      return fail(fmt::format("matrix: the claim changed since the batch started (sha256 {} then, {} now)",
                              recorded.empty() ? "none" : recorded, claim.value_or("none")),
                  spec.claim.value_or(""), "restore the claim as it was, or start a new batch with --out");
    if (b.json.value("code", Json()) != o.code)
      result.notes.push_back("this cgmem build differs from the one that started the batch; "
                             "`cgmem report` will refuse the mix unless --allow-mixed");
    return b;
  }
  std::error_code ec;
  if (fs::exists(b.dir, ec) && !fs::is_empty(b.dir, ec))
    return fail("matrix: the batch directory exists, is not empty and holds no batch.json", b.dir.string(),
                "give --out a new or empty directory: a batch removes and rewrites what is inside it");
  fs::create_directories(b.dir, ec);
  if (ec) return fail("matrix: create the batch directory: " + ec.message(), b.dir.string(), "pick another --out");
  b.json = {{"schema", 1}, {"name", spec.name}, {"spec", fs::absolute(spec.path).string()},
            {"claim", spec.claim ? Json(*spec.claim) : Json(nullptr)},
            {"claim_sha256", claim ? Json(*claim) : Json(nullptr)}, {"started_at", iso_utc(std::time(nullptr))}, {"code", o.code}};
  return b;
}

// Removes what an unfinished run left, only when it is a run directory of
// this batch: a real directory (not a link) that is empty or holds a cgmem
// meta.json. Anything else is the user's and stays.
Result<void> remove_unfinished(const fs::path& run_dir) {
  std::error_code ec;
  auto status = fs::symlink_status(run_dir, ec);
  auto meta = read_json(run_dir / run_format::kMetaFile);
  bool ours = fs::is_directory(status) && (fs::is_empty(run_dir, ec) || (meta && meta->contains("schema")));
  if (!ours)
    return fail("matrix: an unfinished run's place holds something that is not a cgmem run directory",
                run_dir.string(), "move it away, then rerun with --resume");
  fs::remove_all(run_dir, ec);
  if (ec) return fail("matrix: remove the unfinished run: " + ec.message(), run_dir.string());
  return {};
}

Result<void> check_claim(const MatrixSpec& spec, const std::optional<std::string>& recorded) {
  if (!spec.claim) return {};
  auto now = sha256_file(*spec.claim);
  if (!now) return std::unexpected(now.error());
  if (*now != *recorded)
    return fail(fmt::format("matrix: the claim changed after the batch started (sha256 {} then, {} now)", *recorded, *now),
                *spec.claim, "restore the claim as it was, or start a new batch with --out");
  return {};
}

}  // namespace

Result<void> record_claim(const std::string& run_dir, const std::string& claim_sha256) {
  fs::path meta = fs::path(run_dir) / run_format::kMetaFile;
  auto j = read_json(meta);
  if (!j) return std::unexpected(j.error());
  if ((*j).value("claim_sha256", Json()) == Json(claim_sha256)) return {};
  (*j)["claim_sha256"] = claim_sha256;
  return write_json(meta, *j);
}

Result<MatrixResult> run_matrix(const MatrixSpec& spec, const MatrixOptions& o, Launcher& launcher,
                                ProgressPrinter& progress) {
  MatrixResult result{.batch_dir = o.out_dir};
  std::optional<std::string> claim;
  if (spec.claim) {
    auto hash = sha256_file(*spec.claim);
    if (!hash) return std::unexpected(hash.error());
    claim = *hash;
  }
  auto batch = open_batch(spec, o, claim, result);
  if (!batch) return std::unexpected(batch.error());
  PlanOptions po = o.plan;
  po.batch_dir = fs::absolute(o.out_dir).lexically_normal().string();
  auto runs = plan(spec, po);
  for (const auto& r : runs)
    result.runs.push_back({.name = r.name, .config = r.config, .workload = r.workload,
                           .dir = (fs::path(po.batch_dir) / r.name).string(), .rep = r.rep, .state = "unfinished"});
  for (auto& rec : result.runs)
    if (fs::exists(fs::path(rec.dir) / run_format::kOutcomeFile))
      rec.state = "finished before", rec.status = outcome_status(rec.dir);
  if (auto s = batch->save(result.runs); !s) return std::unexpected(s.error());

  std::error_code scratch_ec;
  fs::create_directories(scratch_dir(po.batch_dir), scratch_ec);
  double started = now_s(), done_s = 0, done_cap_s = 0, remaining_caps = 0;
  for (size_t i = 0; i < runs.size(); ++i)
    if (result.runs[i].state == "unfinished") remaining_caps += runs[i].cap_s;
  for (size_t i = 0; i < runs.size(); ++i) {
    RunRecord& rec = result.runs[i];
    if (rec.state == "finished before") {
      ++result.skipped;
      continue;
    }
    if (auto c = check_claim(spec, claim); !c) return std::unexpected(c.error());
    std::error_code ec;
    if (fs::exists(fs::symlink_status(rec.dir, ec))) {
      progress.line(fmt::format("matrix: {} did not finish before; running it again", rec.name));
      if (auto removed = remove_unfinished(rec.dir); !removed) return std::unexpected(removed.error());
    }
    remaining_caps -= runs[i].cap_s;
    double run_start = now_s();
    ProgressState state{.index = i + 1, .total = runs.size(), .name = rec.name};
    auto tick = [&] {
      state.run_s = now_s() - run_start;
      state.elapsed_s = now_s() - started;
      state.eta_s = eta_seconds(remaining_caps, runs[i].cap_s, state.run_s, done_s, done_cap_s);
      progress.show(state);
    };
    tick();
    auto code = launcher.launch(run_arguments(runs[i], rec.dir), tick);
    if (!code) return std::unexpected(code.error());
    rec.exit_code = *code;
    rec.seconds = now_s() - run_start;
    bool finished = fs::exists(fs::path(rec.dir) / run_format::kOutcomeFile);
    rec.state = finished ? "finished" : "unfinished";
    rec.status = finished ? outcome_status(rec.dir) : "";
    if (claim && fs::exists(fs::path(rec.dir) / run_format::kMetaFile))
      if (auto r = record_claim(rec.dir, *claim); !r) return std::unexpected(r.error());
    ++result.ran;
    done_s += rec.seconds;
    done_cap_s += runs[i].cap_s;
    progress.line(fmt::format("matrix: {:>{}}/{} {}: {} ({:.1f} s)", i + 1, std::to_string(runs.size()).size(),
                              runs.size(), rec.name, rec.status.empty() ? "no outcome.json" : rec.status, rec.seconds));
    if (auto s = batch->save(result.runs); !s) return std::unexpected(s.error());
    if (*code == kInterrupted || run_format::parse_status(rec.status) == run_format::Status::interrupted) {
      result.interrupted = true;
      break;
    }
    if (!finished && (*code == kUsage || *code == kUnavailable))
      return fail(fmt::format("matrix: `cgmem run` refused {} (exit code {}); its message is above", rec.name, *code),
                  rec.dir, "fix the spec or the host, then rerun with --resume");
  }
  bool all_finished = std::all_of(result.runs.begin(), result.runs.end(),
                                  [](const RunRecord& r) { return r.state != "unfinished"; });
  if (all_finished) fs::remove_all(scratch_dir(po.batch_dir), scratch_ec);
  return result;
}

}  // namespace cgmem::lab
