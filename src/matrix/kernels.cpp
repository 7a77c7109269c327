#include "matrix/kernels.h"

#include <fmt/format.h>

#include <algorithm>
#include <ctime>
#include <filesystem>

#include "common/clock.h"
#include "common/file.h"
#include "common/json_get.h"
#include "matrix/plan.h"
#include "matrix/runner.h"
#include "run_format/run_format.h"

namespace cgmem::matrix {

namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

Json read_object(const fs::path& path) {
  auto text = read_file(path.string(), path.filename().string());
  if (!text) return Json();
  Json j = Json::parse(*text, nullptr, false);
  return j.is_object() ? j : Json();
}

// The index as it starts, or as --resume finds it.
Result<Json> open_index(const MatrixSpec& spec, const MatrixOptions& o, const std::optional<std::string>& claim) {
  fs::path file = fs::path(o.out_dir) / run_format::kBatchFile;
  std::error_code ec;
  if (fs::exists(file, ec)) {
    if (!o.resume)
      return fail("matrix: this directory already holds a batch", o.out_dir,
                  "pass --resume to finish it, or --out another directory");
    Json old = read_object(file);
    if (old.is_null()) return fail("read: not a JSON object", file.string(), "move the file away");
    std::string recorded = get_str(old, "claim_sha256").value_or("");
    if (recorded != claim.value_or(""))
      return fail(fmt::format("matrix: the claim changed since the batch started (sha256 {} then, {} now)",
                              recorded.empty() ? "none" : recorded, claim.value_or("none")),
                  spec.claim.value_or(""), "restore the claim as it was, or start a new batch with --out");
    return old;
  }
  if (fs::exists(o.out_dir, ec) && !fs::is_empty(o.out_dir, ec))
    return fail("matrix: the batch directory exists, is not empty and holds no batch.json", o.out_dir,
                "give --out a new or empty directory: a batch removes and rewrites what is inside it");
  fs::create_directories(o.out_dir, ec);
  if (ec) return fail("matrix: create the batch directory: " + ec.message(), o.out_dir, "pick another --out");
  return Json{{"schema", run_format::kBatchSchema}, {"name", spec.name}, {"spec", fs::absolute(spec.path).string()},
              {"claim", spec.claim ? Json(*spec.claim) : Json(nullptr)},
              {"claim_sha256", claim ? Json(*claim) : Json(nullptr)}, {"started_at", iso_utc(std::time(nullptr))},
              {"code", o.code}};
}

// The index's kernels and runs as the sessions' own batch.json files say.
Result<void> save_index(Json& index, const MatrixSpec& spec, const MatrixOptions& o,
                        const std::vector<KernelSession>& sessions) {
  index["kernels"] = Json::array();
  index["runs"] = Json::array();
  for (const auto& k : spec.kernels) {
    Json entry = kernel_json(k);
    entry["dir"] = k.label;
    entry["state"] = "not started";
    entry["exit_code"] = nullptr;
    for (const auto& s : sessions)
      if (s.label == k.label) entry["state"] = s.state, entry["exit_code"] = s.exit_code;
    index["kernels"].push_back(entry);
    Json sub = read_object(fs::path(o.out_dir) / k.label / run_format::kBatchFile);
    if (!sub.contains("runs") || !sub["runs"].is_array()) continue;
    for (Json run : sub["runs"]) {
      if (!run.is_object()) continue;
      run["dir"] = k.label + "/" + get_str(run, "dir").value_or("");
      run["kernel"] = k.label;
      index["runs"].push_back(run);
    }
  }
  index["updated_at"] = iso_utc(std::time(nullptr));
  return write_file_atomic((fs::path(o.out_dir) / run_format::kBatchFile).string(), index.dump(2) + "\n");
}

// On --resume: every run of this kernel has its outcome.json.
bool all_finished(const MatrixSpec& spec, const MatrixOptions& o, const KernelSpec& k, const std::string& dir) {
  PlanOptions po = o.plan;
  po.kernel = k.label;
  po.batch_dir = dir;
  auto records = run_records(plan(spec, po), dir);
  return std::all_of(records.begin(), records.end(), [](const RunRecord& r) { return r.state != "unfinished"; });
}

}  // namespace

Result<KernelBatchResult> run_kernel_sessions(const MatrixSpec& spec, const MatrixOptions& o, SessionRunner& runner,
                                              const std::function<void(const std::string&)>& say) {
  auto claim = claim_hash(spec);
  if (!claim) return std::unexpected(claim.error());
  auto index = open_index(spec, o, *claim);
  if (!index) return std::unexpected(index.error());
  KernelBatchResult result;
  if (auto s = save_index(*index, spec, o, result.sessions); !s) return std::unexpected(s.error());
  for (const auto& k : spec.kernels) {
    std::string dir = kernel_batch_dir(spec, fs::absolute(o.out_dir).lexically_normal().string(), k.label);
    bool started = fs::exists(fs::path(dir) / run_format::kBatchFile);
    KernelSession session{.label = k.label, .dir = dir};
    if (o.resume && started && all_finished(spec, o, k, dir)) {
      session.state = "finished before";
      say(fmt::format("kernel {}: every run finished before", k.label));
    } else {
      session.exit_code = runner.run(k, dir, o.resume && started);
      session.state = session.exit_code == 0 ? "finished" : "stopped";
    }
    result.sessions.push_back(session);
    if (auto s = save_index(*index, spec, o, result.sessions); !s) return std::unexpected(s.error());
    if (session.exit_code != 0) {
      result.exit_code = session.exit_code;
      break;
    }
  }
  return result;
}

}  // namespace cgmem::matrix
