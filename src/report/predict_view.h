// predict.md's sections, numbered as in the study: (1) sleeps and their
// length, (1c) phases, (3) time to the OOM kill, (4) PSI, (5) growth, and
// (7) memory.swap.high when a run set it.
#pragma once

#include <vector>

#include "report/document.h"
#include "report/predict.h"

namespace cgmem::report {

std::vector<Section> predict_sections(const std::vector<RunPrediction>& runs);

}  // namespace cgmem::report
