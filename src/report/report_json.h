// report.json: every number of summary.md and predict.md, unrounded.
// Bytes in bytes, times in the unit the key names, shares as 0..1; a value
// the runs did not give is null.
#pragma once

#include <nlohmann/json.hpp>
#include <vector>

#include "report/predict.h"
#include "report/summary.h"

namespace cgmem::report {

nlohmann::json to_json(const RunSummary& r);
nlohmann::json to_json(const GroupSummary& g);
nlohmann::json to_json(const RunPrediction& p);

}  // namespace cgmem::report
