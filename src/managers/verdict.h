// The model's verdict (model/verdict.h) for one scope of a translation: the
// limits the manager leaves in that scope's files.
#pragma once

#include <optional>
#include <string>

#include "managers/assignment.h"
#include "model/verdict.h"

namespace cgmem::managers {

// What the manager leaves in each file the verdict reads: its value, or max
// where it writes none.
model::CgroupLimits limits_of(const Translation& t, const std::string& scope);

// The verdict for `scope`, or nullopt when the scope has neither
// memory.high nor memory.max.
std::optional<model::Verdict> verdict(const Translation& t, const std::string& scope, const model::VerdictInput& in);

}  // namespace cgmem::managers
