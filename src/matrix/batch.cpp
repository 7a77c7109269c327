#include "matrix/batch.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <stdio.h>

#include <ctime>
#include <filesystem>

#include "common/clock.h"
#include "common/file.h"
#include "common/json_get.h"
#include "common/sha256.h"
#include "run_format/run_format.h"

namespace cgmem::matrix {

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
  Json j = {{"dir", r.name}, {"config", r.config}, {"workload", r.workload}, {"rep", r.rep},
            {"state", r.state}, {"status", r.status.empty() ? Json(nullptr) : Json(r.status)}};
  if (!r.kernel.empty()) j["kernel"] = r.kernel;
  return j;
}

// batch.json's "shard" of a sharded plan: which part, and how many runs the
// whole plan of this kernel has (what `cgmem report` checks the parts
// against); null for a whole plan.
Json shard_json(const MatrixSpec& spec, const PlanOptions& o) {
  if (o.shard.whole()) return nullptr;
  PlanOptions whole = o;
  whole.shard = {};
  return {{"index", o.shard.index}, {"count", o.shard.count}, {"plan_runs", plan(spec, whole).size()}};
}

// --resume: the batch.json there, if the claim is the one it started with.
Result<Batch> resume_batch(const MatrixSpec& spec, const MatrixOptions& o, const std::optional<std::string>& claim,
                           std::vector<std::string>& notes) {
  Batch b{.dir = o.out_dir};
  auto old = read_json(fs::path(b.dir) / run_format::kBatchFile);
  if (!old) return std::unexpected(old.error());
  b.json = *old;
  std::string recorded = get_str(b.json, "claim_sha256").value_or("");
  if (recorded != claim.value_or(""))
    return fail(fmt::format("matrix: the claim changed since the batch started (sha256 {} then, {} now)",
                            recorded.empty() ? "none" : recorded, claim.value_or("none")),
                spec.claim.value_or(""), "restore the claim as it was, or start a new batch with --out");
  if (b.json.value("shard", Json()) != shard_json(spec, o.plan))
    return fail(fmt::format("matrix: the batch was started as another part of the plan (shard {} then, {} now)",
                            b.json.contains("shard") ? b.json["shard"].dump() : "none",
                            o.plan.shard.whole() ? "none" : o.plan.shard.text()),
                b.dir, "resume it with the --shard (and --reps) it started with");
  if (b.json.value("code", Json()) != o.code)
    notes.push_back("this cgmem build differs from the one that started the batch; "
                    "`cgmem report` will refuse the mix unless --allow-mixed");
  return b;
}

Result<Batch> start_batch(const MatrixSpec& spec, const MatrixOptions& o, const std::optional<std::string>& claim) {
  Batch b{.dir = o.out_dir};
  std::error_code ec;
  if (fs::exists(b.dir, ec) && !fs::is_empty(b.dir, ec))
    return fail("matrix: the batch directory exists, is not empty and holds no batch.json", b.dir,
                "give --out a new or empty directory: a batch removes and rewrites what is inside it");
  fs::create_directories(b.dir, ec);
  if (ec) return fail("matrix: create the batch directory: " + ec.message(), b.dir, "pick another --out");
  b.json = {{"schema", run_format::kBatchSchema}, {"name", spec.name}, {"spec", fs::absolute(spec.path).string()},
            {"claim", spec.claim ? Json(*spec.claim) : Json(nullptr)},
            {"claim_sha256", claim ? Json(*claim) : Json(nullptr)}, {"started_at", iso_utc(std::time(nullptr))}, {"code", o.code}};
  if (const KernelSpec* k = planned_kernel(spec, o.plan)) b.json["kernel"] = kernel_json(*k);
  if (Json shard = shard_json(spec, o.plan); !shard.is_null()) b.json["shard"] = shard;
  if (!o.host.is_null()) b.json["host"] = o.host;
  return b;
}

}  // namespace

Json kernel_json(const KernelSpec& k) {
  return {{"label", k.label}, {"name", k.name}, {"stock_slots", k.stock_slots ? Json(*k.stock_slots) : Json(nullptr)},
          {"swap", k.swap.empty() ? Json(nullptr) : Json(k.swap)},
          {"swap_kind", k.swap_kind.empty() ? Json(nullptr) : Json(k.swap_kind)}, {"zswap", k.zswap}};
}

const KernelSpec* planned_kernel(const MatrixSpec& spec, const PlanOptions& o) {
  if (!o.kernel.empty()) return find_kernel(spec, o.kernel);
  return spec.kernels.size() == 1 ? &spec.kernels.front() : nullptr;
}

Result<void> Batch::save(const std::vector<RunRecord>& runs) {
  json["runs"] = Json::array();
  for (const auto& r : runs) json["runs"].push_back(run_entry(r));
  json["updated_at"] = iso_utc(std::time(nullptr));
  return write_json(fs::path(dir) / run_format::kBatchFile, json);
}

Result<Batch> open_batch(const MatrixSpec& spec, const MatrixOptions& o, const std::optional<std::string>& claim,
                         std::vector<std::string>& notes) {
  if (!fs::exists(fs::path(o.out_dir) / run_format::kBatchFile)) return start_batch(spec, o, claim);
  if (!o.resume)
    return fail("matrix: this directory already holds a batch", o.out_dir,
                "pass --resume to finish it, or --out another directory");
  return resume_batch(spec, o, claim, notes);
}

std::vector<RunRecord> run_records(const std::vector<PlannedRun>& runs, const std::string& batch_dir) {
  std::vector<RunRecord> records;
  for (const auto& r : runs)
    records.push_back({.name = r.name, .config = r.config, .workload = r.workload,
                       .dir = (fs::path(batch_dir) / r.name).string(), .kernel = r.kernel, .rep = r.rep,
                       .state = "unfinished"});
  for (auto& rec : records)
    if (fs::exists(fs::path(rec.dir) / run_format::kOutcomeFile))
      rec.state = "finished before", rec.status = outcome_status(rec.dir);
  return records;
}

Result<void> remove_unfinished(const std::string& run_dir) {
  std::error_code ec;
  auto status = fs::symlink_status(run_dir, ec);
  auto meta = read_json(fs::path(run_dir) / run_format::kMetaFile);
  bool ours = fs::is_directory(status) && (fs::is_empty(run_dir, ec) || (meta && meta->contains("schema")));
  if (!ours)
    return fail("matrix: an unfinished run's place holds something that is not a cgmem run directory",
                run_dir, "move it away, then rerun with --resume");
  fs::remove_all(run_dir, ec);
  if (ec) return fail("matrix: remove the unfinished run: " + ec.message(), run_dir);
  return {};
}

std::string outcome_status(const std::string& run_dir) {
  auto j = read_json(fs::path(run_dir) / run_format::kOutcomeFile);
  if (!j) return "";
  auto it = j->find(run_format::outcome_key::kStatus);
  return it != j->end() && it->is_string() ? it->get<std::string>() : "";
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

Result<void> record_claim(const std::string& run_dir, const std::string& claim_sha256) {
  fs::path meta = fs::path(run_dir) / run_format::kMetaFile;
  auto j = read_json(meta);
  if (!j) return std::unexpected(j.error());
  if (get_str(*j, run_format::meta_key::kClaimSha256) == claim_sha256) return {};
  (*j)[run_format::meta_key::kClaimSha256] = claim_sha256;
  return write_json(meta, *j);
}

Result<void> merge_resumed_batch(const std::string& from_dir, const std::string& into_dir) {
  const fs::path from = from_dir, into = into_dir;
  std::error_code ec;
  std::vector<fs::path> entries;
  for (const auto& entry : fs::directory_iterator(from, ec)) entries.push_back(entry.path());
  if (ec) return fail("matrix: list the resumed batch: " + ec.message(), from.string());
  for (const auto& entry : entries) {
    fs::path target = into / entry.filename();
    bool exists = fs::exists(fs::symlink_status(target, ec));
    int moved = exists ? ::renameat2(AT_FDCWD, entry.c_str(), AT_FDCWD, target.c_str(), RENAME_EXCHANGE)
                       : ::rename(entry.c_str(), target.c_str());
    if (moved != 0)
      return sys_error("matrix: move the resumed run into the batch", target.string(),
                       "the resumed batch is kept in " + from.string() + "; move it by hand");
    if (exists) fs::remove_all(entry, ec);  // now the old entry
  }
  fs::remove(from, ec);
  return {};
}

}  // namespace cgmem::matrix
