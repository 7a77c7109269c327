// `cgmem report` as a library call: read run directories, refuse mixed
// builds, compute the summary and predictions, write summary.md,
// predict.md, report.json, plots/ and report.html.
#pragma once

#include <nlohmann/json.hpp>
#include <csignal>
#include <string>
#include <vector>

#include "common/error.h"
#include "report/run.h"

namespace cgmem::report {

// The file that marks a directory as a cgmem report, which a later report
// may replace whole.
inline constexpr char kReportMarker[] = ".cgmem-report";
// report.json's "schema"; renaming or removing a key bumps it.
inline constexpr int kReportSchema = 1;

struct Options {
  std::vector<std::string> dirs;  // run directories or batch directories
  std::string out;                // default: FIRST_DIR/report
  bool markdown = true, json = true, html = true;
  bool allow_mixed = false;       // go on with runs from different builds
  // Set by a caught SIGINT/SIGTERM (cli/signals.h): the report stops, ends
  // its gnuplots and removes its staging directory; nothing is committed.
  const volatile std::sig_atomic_t* stop = nullptr;
};

struct Written {
  std::string out_dir;
  std::vector<std::string> files;  // paths written
  std::vector<std::string> notes;  // what the reader should know (unfinished runs, ...)
  nlohmann::json json;             // report.json's content
};

Result<Written> make_report(const Options& options);

// Reads every run under dirs, with the matrix's labels from batch.json
// (docs/matrix.md) where there is one.
Result<std::vector<Run>> read_runs(const std::vector<std::string>& dirs);

// The code identities of the runs; an error naming them when there is more
// than one and mixed builds are not allowed.
Result<void> check_identity(const std::vector<Run>& runs, bool allow_mixed);

}  // namespace cgmem::report
