#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <sstream>

#include "cli/app.h"
#include "common/exit_codes.h"
#include "cli/handlers.h"
#include "cli/signals.h"
#include "report/report.h"
#include "report/report_json.h"

namespace cgmem::cli {

namespace {

// "md,json,html" -> the three switches; an unknown word is a usage error.
bool parse_formats(const std::string& text, report::Options& o) {
  o.markdown = o.json = o.html = false;
  std::stringstream in(text);
  std::string word;
  while (std::getline(in, word, ',')) {
    if (word == "md") o.markdown = true;
    else if (word == "json") o.json = true;
    else if (word == "html") o.html = true;
    else return false;
  }
  return o.markdown || o.json || o.html;
}

void print_table(const report::Written& w) {
  fmt::print("{:<24} {:<8} {:<36} {:>14} {:>18}\n", "workload", "config", "outcome", "median op (ms)",
             "peak memory.current");
  for (const auto& g : w.json["groups"]) {
    auto med = g["median_op_ms"]["max"];
    auto peak = g["peak_bytes"]["max"];
    fmt::print("{:<24} {:<8} {:<36} {:>14} {:>18}\n", g["workload"].get<std::string>(),
               g["config"].get<std::string>(), g["outcome"].get<std::string>(),
               med.is_number() ? fmt::format("{:.3g}", med.get<double>()) : "-",
               peak.is_number() ? format_bytes(peak.get<uint64_t>()) : "-");
  }
}

// The claims table (claims.md) last, so that a script's last lines are it.
void print_claims(const report::Written& w) {
  const auto& claims = w.json["claims"];
  if (!claims.is_array() || claims.empty()) return;
  fmt::print("\nthe study's claims, checked (claims.md):\n");
  for (const auto& c : claims) {
    // A batch of several kernels: a row per claim and kernel.
    std::string on = c.contains("kernel") ? " (on " + c["kernel"].get<std::string>() + ")" : "";
    fmt::print("{:<24} {}{}\n", c["verdict"].get<std::string>(), c["claim"].get<std::string>(), on);
    fmt::print("{:<24}   study: {}\n", "", c["study"].get<std::string>());
    fmt::print("{:<24}   this batch: {}\n", "", c["batch"].get<std::string>());
    if (!c["note"].get<std::string>().empty()) fmt::print("{:<24}   {}\n", "", c["note"].get<std::string>());
  }
}

}  // namespace

int run_report(std::span<char*> args) {
  CLI::App app("Summarize run directories and compare them with the kernel's throttle formula.", "report");
  report::Options o;
  std::string formats = "md,json,html";
  bool json = false;
  app.add_option("DIR", o.dirs, "run directories, or batch directories that hold them")->required();
  app.add_option("--out", o.out, "where to write the report (default: FIRST_DIR/report)");
  app.add_option("--format", formats, "comma-separated: md, json, html (default: all three)");
  app.add_flag("--allow-mixed", o.allow_mixed, "go on when the runs come from different builds");
  app.add_flag("--json", json, "print report.json's content and the files written");
  if (int code = parse(app, args); code >= 0) return code;
  if (!parse_formats(formats, o)) {
    print_error(fmt::format("--format: '{}' is not a list of md, json, html", formats));
    return kUsage;
  }
  catch_stop_signals();  // a SIGINT/SIGTERM ends gnuplot and removes the staging directory
  o.stop = stop_flag();
  auto written = report::make_report(o);
  if (!written) {
    print_error(written.error());
    return stop_requested() ? kInterrupted : kFailure;
  }
  if (json) {
    nlohmann::json out = written->json;
    out["out_dir"] = written->out_dir;
    out["files"] = written->files;
    fmt::print("{}", report::dump_json(out));
    return kOk;
  }
  for (const auto& n : written->notes) fmt::print("{}\n", n);
  print_table(*written);
  fmt::print("report written to {}/ ({} files)\n", written->out_dir, written->files.size());
  for (const auto& f : written->files) fmt::print("  {}\n", f);
  print_claims(*written);
  return kOk;
}

}  // namespace cgmem::cli
