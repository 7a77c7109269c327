// Writing a run directory (docs/run-format.md): meta.json and outcome.json
// whole or absent (written to NAME.tmp, fsynced, renamed), ops.jsonl and
// samples.jsonl appended one whole line per write(2). The file names are
// the contract's (run_format/run_format.h).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/clock.h"  // iso_utc, for the records' stamps
#include "common/error.h"
#include "common/fd.h"

namespace cgmem::lab {

class RunDir {
 public:
  // Creates `path` (and missing parents). An existing directory is used only
  // when it is empty, so a run never mixes with an older one.
  static Result<RunDir> create(const std::string& path);

  const std::string& path() const { return path_; }
  std::string file(const char* name) const { return path_ + "/" + name; }

  // Writes `value` (pretty, 2 spaces) to NAME atomically.
  Result<void> write_json(const char* name, const nlohmann::json& value) const;
  // Writes text to NAME atomically.
  Result<void> write_text(const char* name, const std::string& text) const;
  // Opens NAME for appending (created if missing).
  Result<Fd> open_append(const char* name) const;
  // After a run that never started: removes the directory when it is
  // empty, and the parents create() made for it (runs/) when they are.
  void remove_if_empty() const;

 private:
  explicit RunDir(std::string path) : path_(std::move(path)) {}
  std::string path_;
  std::vector<std::string> made_;  // directories create() made, deepest first
};

// "runs/NAME-20261129T224027Z" under `base` for the wall time `when`.
std::string default_run_path(const std::string& base, const std::string& name, time_t when);

}  // namespace cgmem::lab
