// The claims table (claims.h) as the report prints it: a section of
// claims.md and report.html, and the `claims` array of report.json.
#pragma once

#include <nlohmann/json.hpp>
#include <vector>

#include "report/claims.h"
#include "report/document.h"

namespace cgmem::report {

Section claims_section(const std::vector<Claim>& claims);
nlohmann::json claims_json(const std::vector<Claim>& claims);

}  // namespace cgmem::report
