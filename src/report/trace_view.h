// The trace section (trace_report.h) as the report prints it: in
// claims.md, predict.md and report.html, and as report.json's `trace`
// (docs/report.md, "The trace section").
#pragma once

#include <nlohmann/json.hpp>
#include <vector>

#include "report/document.h"
#include "report/trace_report.h"

namespace cgmem::report {

// The study's figures the split is set beside.
inline constexpr double kStudyRatioLo = 1.06, kStudyRatioHi = 1.10;  // time per sleep / formula, medians
inline constexpr double kStudyTimerShare = 0.5;                      // "about half" of the extra

// Empty when no run was traced.
std::vector<Section> trace_sections(const std::vector<TraceReport>& traces);

// report.json's `trace`: one object per traced run, in the runs' order.
nlohmann::json trace_json(const std::vector<TraceReport>& traces);

}  // namespace cgmem::report
