// Reading run directories (docs/run-format.md) for the report. Tolerant:
// unknown keys are ignored, missing ones stay empty, a truncated last line
// is skipped and counted, a missing outcome.json marks the run unfinished.
#pragma once

#include <string>
#include <vector>

#include "common/error.h"
#include "report/run.h"

namespace cgmem::report {

// Reads one run directory. Fails only when meta.json is missing or is not a
// JSON object, or a file exists but cannot be read.
Result<Run> read_run(const std::string& dir);

// The run directories under each path: the path itself when it holds a
// meta.json, else the directories below it that do, at any depth up to 6
// (sorted by path; a run directory is not searched further). Fails when a
// path holds no run at all.
Result<std::vector<std::string>> find_runs(const std::vector<std::string>& paths);

// Parsers for the single JSON files, exposed for tests.
Result<Meta> parse_meta(std::string_view text, const std::string& path);
Result<OutcomeRecord> parse_outcome(std::string_view text, const std::string& path);
// One samples.jsonl line; false when it is not a JSON object.
bool parse_sample_line(std::string_view line, SampleLine& sample);

}  // namespace cgmem::report
