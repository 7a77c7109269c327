// report.json: every number of summary.md and predict.md, unrounded.
// Bytes in bytes, times in the unit the key names, shares as 0..1; a value
// the runs did not give is null.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "report/predict.h"
#include "report/summary.h"

namespace cgmem::report {

// report.json's text, pretty: bytes that are not UTF-8 (a load generator's
// binary output, a name in meta.json) become U+FFFD, so the report is always
// valid JSON and never fails on them.
std::string dump_json(const nlohmann::json& j);

nlohmann::json to_json(const RunSummary& r);
nlohmann::json to_json(const GroupSummary& g);
nlohmann::json to_json(const RunPrediction& p);

}  // namespace cgmem::report
