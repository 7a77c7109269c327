// The evidence line: one JSON object per decision, acted or not, with the
// rule, the condition's numbers, the fresh read before acting, and the
// scan's whole row (counters, rates, the model's forecast: watch/render.h).
// Schema in docs/guard.md.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "guard/act.h"
#include "guard/decide.h"

namespace cgmem::guard {

nlohmann::json decision_json(const Decision& d, const ActResult& outcome, bool dry_run, double unix_time_s);

// One line for people: "kill /jobs/leak (rule leaks): throttled for 21s ... -> killed (1 tasks)".
std::string decision_text(const Decision& d, const ActResult& outcome);

}  // namespace cgmem::guard
