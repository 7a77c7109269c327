// summary.md's sections: one table per workload (a row per config, each
// cell the range over the repetitions), then one row per run.
#pragma once

#include <string>
#include <vector>

#include "report/document.h"
#include "report/summary.h"

namespace cgmem::report {

std::vector<Section> summary_sections(const std::vector<RunSummary>& runs,
                                      const std::vector<GroupSummary>& groups);

// "killed (3 of 3)", "not killed in 150 s (3 of 3)", "killed 1 of 3; 1 unfinished".
std::string outcome_text(const GroupSummary& g);

}  // namespace cgmem::report
