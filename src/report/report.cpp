#include "report/report.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <future>
#include <map>
#include <set>

#include "common/file.h"
#include "common/staged_dir.h"
#include "report/claims.h"
#include "report/claims_kernels.h"
#include "report/claims_view.h"
#include "report/html.h"
#include "common/json_get.h"
#include "report/jsonl.h"
#include "report/plots.h"
#include "report/predict.h"
#include "report/predict_view.h"
#include "report/programs.h"
#include "report/read_run.h"
#include "report/report_json.h"
#include "report/rfc.h"
#include "report/summary.h"
#include "report/summary_view.h"
#include "report/trace_view.h"
#include "report/shards.h"
#include "run_format/run_format.h"

namespace cgmem::report {

namespace fs = std::filesystem;

namespace {

struct Label {
  std::string config, workload, kernel;
  std::optional<int> stock_slots;
  int rep = 0;
  size_t order = 0;  // position in batch.json: the order the matrix ran
};

// batch.json's labels by run directory name; empty when there is none.
std::map<std::string, Label> batch_labels(const fs::path& batch_dir) {
  std::map<std::string, Label> out;
  auto file = MappedFile::open((batch_dir / run_format::kBatchFile).string());
  if (!file) return out;
  Json j = Json::parse(file->text(), nullptr, false);
  const Json* runs = json_child(j, "runs");
  if (!runs || !runs->is_array()) return out;
  // The batch's kernel (one VM session's): {"label", "name", "stock_slots"}.
  const Json* kernel = json_child(j, "kernel");
  std::string label = kernel ? get_str(*kernel, "label").value_or("") : "";
  std::optional<int> slots;
  if (kernel)
    if (auto n = get_i64(*kernel, "stock_slots"); n && *n >= 1 && *n <= 64) slots = static_cast<int>(*n);
  for (size_t i = 0; i < runs->size(); ++i) {
    const Json& r = (*runs)[i];
    auto dir = get_str(r, "dir");
    if (!dir) continue;
    out[*dir] = {get_str(r, "config").value_or(""), get_str(r, "workload").value_or(""),
                 get_str(r, "kernel").value_or(label), slots, static_cast<int>(get_i64(r, "rep").value_or(0)), i + 1};
  }
  return out;
}

// Returns the run's position in its batch.json (0 when it has none).
size_t apply_label(Run& run, std::map<std::string, std::map<std::string, Label>>& cache) {
  fs::path dir = fs::path(run.dir).lexically_normal();
  if (dir.filename().empty()) dir = dir.parent_path();
  std::string parent = dir.parent_path().string();
  auto it = cache.find(parent);
  if (it == cache.end()) it = cache.emplace(parent, batch_labels(dir.parent_path())).first;
  auto label = it->second.find(dir.filename().string());
  if (label == it->second.end()) return 0;
  if (!label->second.config.empty()) run.config = label->second.config;
  if (!label->second.workload.empty()) run.workload = label->second.workload;
  if (label->second.rep) run.rep = label->second.rep;
  run.kernel = label->second.kernel;
  run.stock_slots = label->second.stock_slots;
  return label->second.order;
}

std::string identity(const Run& r) {
  return fmt::format("commit {} binary {}", r.meta.git_commit.empty() ? "?" : r.meta.git_commit,
                     r.meta.binary_hash.empty() ? "?" : r.meta.binary_hash);
}

std::vector<std::string> batch_notes(const std::vector<Run>& runs, const std::vector<RunSummary>& sums) {
  std::vector<std::string> notes;
  std::set<std::string> ids, claims, hz;
  std::vector<std::string> unfinished, unreadable;
  uint64_t truncated = 0, bad = 0;
  for (size_t i = 0; i < runs.size(); ++i) {
    ids.insert(identity(runs[i]));
    if (runs[i].meta.claim_sha256) claims.insert(*runs[i].meta.claim_sha256);
    const Meta& m = runs[i].meta;
    std::string vm = m.virtualized.empty() ? "" : ", in a VM: " + m.virtualized;
    hz.insert(fmt::format("{} (kernel {}{})", m.hz, m.kernel, vm));
    if (!runs[i].outcome_problem.empty()) unreadable.push_back(fmt::format("{} ({})", sums[i].name, runs[i].outcome_problem));
    else if (!sums[i].finished) unfinished.push_back(sums[i].name);
    truncated += sums[i].truncated_lines;
    bad += sums[i].bad_lines;
  }
  notes.push_back(fmt::format("{} runs. Code: {}. HZ: {}.", runs.size(), fmt::join(ids, "; "), fmt::join(hz, "; ")));
  if (!claims.empty()) notes.push_back(fmt::format("Claim sha256: {}.", fmt::join(claims, "; ")));
  if (claims.size() > 1) notes.push_back("The runs record different claim files.");
  if (!unfinished.empty())
    notes.push_back(fmt::format("{} unfinished run{} (no outcome.json; read as far as written): {}.",
                                unfinished.size(), unfinished.size() == 1 ? "" : "s", fmt::join(unfinished, ", ")));
  if (!unreadable.empty())
    notes.push_back(fmt::format("{} run{} with an outcome.json that could not be read (read as unfinished): {}.",
                                unreadable.size(), unreadable.size() == 1 ? "" : "s", fmt::join(unreadable, "; ")));
  if (truncated) notes.push_back(fmt::format("Skipped {} truncated last line{}.", truncated, truncated == 1 ? "" : "s"));
  if (bad) notes.push_back(fmt::format("Skipped {} line{} that were not valid JSON objects.", bad, bad == 1 ? "" : "s"));
  return notes;
}

// The report's files and its marker: what a report directory may hold.
const std::vector<std::string> kReportEntries = {"claims.md",   "summary.md", "predict.md", "report.json",
                                                 "report.html", "plots",      kReportMarker, "programs.md"};

// Writes NAME into the staging directory; lists it under its final place.
Result<void> write_text(const StagedDir& out, const char* name, const std::string& text, Written& w) {
  if (auto r = write_file(out.path() + "/" + name, text); !r) return r;
  w.files.push_back(out.target() + "/" + name);
  return {};
}

std::string plots_markdown(const Plots& plots) {
  std::string out = "## Plots\n\n";
  if (!plots.warning.empty()) out += plots.warning + "\n\n";
  for (const auto& f : plots.figures) out += fmt::format("![{}](plots/{}.png)\n\n", f.title, f.name);
  return out;
}

// Runs of one batch on different kernels (HZ=250 and HZ=1000, say) would
// fall into one row per config; the kernel goes into the config's label.
//
// A batch of several kernels ([[kernels]]) labels them itself: the label
// goes into the config's, "high on debian-6.12". A run without one is
// labelled by its kernel release. In a batch of one kernel the label is
// cleared, so that batch reads as it did before kernels could be listed.
void label_kernels(std::vector<Run>& runs) {
  std::set<std::string> labels;
  for (const auto& r : runs)
    if (!r.kernel.empty()) labels.insert(r.kernel);
  if (labels.size() >= 2) {
    for (auto& r : runs) {
      if (r.kernel.empty()) r.kernel = r.meta.kernel.empty() ? "unlabelled" : r.meta.kernel;
      r.config = fmt::format("{} on {}", r.config, r.kernel);
    }
    return;
  }
  for (auto& r : runs) r.kernel.clear();
  std::set<std::string> kernels;
  for (const auto& r : runs) kernels.insert(r.meta.kernel);
  if (kernels.size() < 2) return;
  for (auto& r : runs) r.config = fmt::format("{} on HZ={} ({})", r.config, r.meta.hz, r.meta.kernel);
}

// A batch of several kernels: each kernel's summary and predictions under
// headings of their own ("Kernel debian-6.12: Workload anon-over"), so
// every figure names its kernel.
struct KernelSections {
  std::vector<Section> summary, predicted;
  Json groups = Json::array();
};

KernelSections by_kernel(const std::vector<KernelFacts>& kernels, const std::vector<Run>& runs,
                         const std::vector<RunSummary>& sums, const std::vector<RunPrediction>& preds) {
  KernelSections out;
  for (const auto& k : kernels) {
    std::vector<RunSummary> s;
    std::vector<RunPrediction> p;
    for (size_t i = 0; i < runs.size(); ++i)
      if (runs[i].kernel == k.label) s.push_back(sums[i]), p.push_back(preds[i]);
    auto groups = group(s);
    for (const auto& g : groups) {
      out.groups.push_back(to_json(g));
      out.groups.back()["kernel"] = k.label;
    }
    auto titled = [&](std::vector<Section> sections, std::vector<Section>& into) {
      for (auto& section : sections) {
        section.title = fmt::format("Kernel {}: {}", kernel_title(k), section.title);
        into.push_back(std::move(section));
      }
    };
    titled(summary_sections(s, groups), out.summary);
    titled(predict_sections(p), out.predicted);
  }
  return out;
}

std::unexpected<Error> stopped() {
  return fail("report: stopped by a signal; nothing written", {}, "run it again to write the report");
}

}  // namespace

Result<std::vector<Run>> read_runs(const std::vector<std::string>& dirs) {
  auto found = find_runs(dirs);
  if (!found) return std::unexpected(found.error());
  std::vector<std::pair<size_t, Run>> ordered;
  std::map<std::string, std::map<std::string, Label>> cache;
  for (const auto& dir : *found) {
    auto run = read_run(dir);
    if (!run) return std::unexpected(run.error());
    size_t order = apply_label(*run, cache);
    ordered.emplace_back(order, std::move(*run));
  }
  // A batch's runs in the order the matrix ran them; others by name.
  std::stable_sort(ordered.begin(), ordered.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<Run> runs;
  for (auto& [order, run] : ordered) runs.push_back(std::move(run));
  label_kernels(runs);
  return runs;
}

Result<void> check_identity(const std::vector<Run>& runs, bool allow_mixed) {
  std::set<std::string> ids;
  for (const auto& r : runs) ids.insert(identity(r));
  if (ids.size() <= 1 || allow_mixed) return {};
  return fail(fmt::format("report: the runs come from {} different builds ({})", ids.size(), fmt::join(ids, "; ")),
              {}, "rerun them with one build, or pass --allow-mixed to compare them anyway");
}

Result<Written> make_report(const Options& o) {
  if (o.dirs.empty()) return fail("report: no run directory given", {}, "give one or more run or batch directories");
  auto stopping = [&] { return o.stop && *o.stop; };
  auto runs = read_runs(o.dirs);
  if (!runs) return std::unexpected(runs.error());
  if (stopping()) return stopped();
  if (auto ok = check_identity(*runs, o.allow_mixed); !ok) return std::unexpected(ok.error());
  Written w;
  auto out = StagedDir::begin(o.out.empty() ? (fs::path(o.dirs.front()) / "report").string() : o.out,
                              kReportMarker, kReportEntries);
  if (!out) return std::unexpected(out.error());
  w.out_dir = out->target();
  // The plots' data is binned on a second thread and gnuplot draws while
  // this one computes the tables.
  const RfcComparison rfc = compare_rfc(*runs);
  std::future<Result<Plots>> plotting;
  if (o.markdown || o.html)
    plotting = std::async(std::launch::async, [&] { return write_plots(*runs, out->path(), rfc); });
  std::vector<RunSummary> sums;
  std::vector<RunPrediction> preds;
  RunTraces run_traces;             // parallel to the runs, for the claims
  std::vector<TraceReport> traces;  // the traced runs', for the trace section
  for (const auto& r : *runs) {
    if (stopping()) break;  // the plotting thread is joined below, then the staging directory removed
    sums.push_back(summarize(r));
    preds.push_back(predict(r));
    run_traces.push_back(is_traced(r) ? std::optional(analyze_trace(r)) : std::nullopt);
    if (run_traces.back()) traces.push_back(*run_traces.back());
  }
  if (stopping()) {
    if (plotting.valid())
      if (auto p = plotting.get()) finish_plots(*p, o.stop);
    return stopped();
  }
  auto groups = group(sums);
  w.notes = batch_notes(*runs, sums);
  const Batches batches = read_batches(*runs);
  for (auto& n : batch_set_notes(batches)) w.notes.push_back(std::move(n));
  const auto kernels = kernels_of(*runs);  // empty unless the batch has two kernels or more
  auto summary = summary_sections(sums, groups);
  auto predicted = predict_sections(preds);
  KernelSections per_kernel;
  if (!kernels.empty()) {
    per_kernel = by_kernel(kernels, *runs, sums, preds);
    summary = std::move(per_kernel.summary);
    predicted = std::move(per_kernel.predicted);
  }
  if (!rfc.empty()) predicted.push_back(rfc_section(rfc));
  auto claims = check_claims(*runs, sums, preds, nullptr, &run_traces);
  std::vector<Section> claimed = {claims_section(claims)};
  std::vector<KernelClaims> kernel_claims;
  if (!kernels.empty()) {
    kernel_claims = check_claims_by_kernel(*runs, sums, preds, &run_traces);
    claimed = kernel_claims_sections(kernel_claims);
  }
  // The trace section goes with the claims and with the predictions.
  const auto traced = trace_sections(traces);
  auto claimed_md = claimed, predicted_md = predicted;
  claimed_md.insert(claimed_md.end(), traced.begin(), traced.end());
  predicted_md.insert(predicted_md.end(), traced.begin(), traced.end());
  Plots plots;
  if (plotting.valid()) {
    auto p = plotting.get();
    if (!p) return std::unexpected(p.error());
    plots = std::move(*p);
    finish_plots(plots, o.stop);
  }
  if (stopping()) return stopped();
  if (!plots.warning.empty()) w.notes.push_back(plots.warning);
  w.json = {{"schema", kReportSchema}, {"notes", w.notes}, {"claims", claims_json(claims)}, {"runs", Json::array()}, {"groups", Json::array()},
            {"predictions", Json::array()}, {"plots", Json::array()}};
  // Batches written before cgmem recorded shards and hosts report as they did.
  if (!batches.shards.empty()) w.json["shards"] = shards_json(batches);
  if (!batches.hosts.empty()) w.json["hosts"] = hosts_json(batches);
  for (const auto& s : sums) w.json["runs"].push_back(to_json(s));
  for (const auto& g : groups) w.json["groups"].push_back(to_json(g));
  for (const auto& p : preds) w.json["predictions"].push_back(to_json(p));
  if (!kernels.empty()) {
    for (size_t i = 0; i < runs->size(); ++i) {
      w.json["runs"][i]["kernel"] = (*runs)[i].kernel;
      w.json["predictions"][i]["kernel"] = (*runs)[i].kernel;
    }
    w.json["groups"] = per_kernel.groups;
    w.json["claims"] = kernel_claims_json(kernel_claims);
    w.json["kernel_differences"] = kernel_differences_json(kernel_claims);
    w.json["kernels"] = kernels_json(kernels);
  }
  for (const auto& f : plots.figures) w.json["plots"].push_back({{"name", f.name}, {"title", f.title}});
  w.json["trace"] = trace_json(traces);
  if (!rfc.empty()) w.json["rfc"] = rfc_json(rfc);
  // --command runs (docs/own-program.md): programs.md and "programs".
  auto programs = summarize_programs(*runs);
  auto program_md = program_sections(programs);
  w.json["programs"] = Json::array();
  for (const auto& p : programs) w.json["programs"].push_back(to_json(p));
  if (o.markdown) {
    if (auto r = write_text(*out, "claims.md", markdown("Claims", claimed_md, w.notes), w); !r)
      return std::unexpected(r.error());
    if (auto r = write_text(*out, "summary.md", markdown("Summary", summary, w.notes) + plots_markdown(plots), w); !r)
      return std::unexpected(r.error());
    if (auto r = write_text(*out, "predict.md", markdown("Predictions", predicted_md), w); !r) return std::unexpected(r.error());
    if (!program_md.empty())
      if (auto r = write_text(*out, "programs.md", markdown("Your program", program_md, w.notes), w); !r)
        return std::unexpected(r.error());
  }
  if (o.json) {
    if (auto r = write_text(*out, "report.json", dump_json(w.json), w); !r) return std::unexpected(r.error());
  }
  if (o.html) {
    auto summary_html = summary;  // the program sections follow the summary's
    summary_html.insert(summary_html.end(), program_md.begin(), program_md.end());
    Page page{.title = "cgmem report", .notes = w.notes, .claims = claimed, .summary = summary_html, .predict = predicted,
              .trace = traced, .plots = std::move(plots)};
    if (auto r = write_text(*out, "report.html", html(page), w); !r) return std::unexpected(r.error());
  }
  if (stopping()) return stopped();
  if (auto r = out->commit(); !r) return std::unexpected(r.error());
  return w;
}

}  // namespace cgmem::report
