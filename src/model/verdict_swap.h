// Inside the verdict (verdict.h has the rules): verdict.cpp decides the kind
// on a host without swap, or where memory.swap.max is 0; verdict_swap.cpp
// where the cgroup may swap. Not for other callers.
#pragma once

#include "model/verdict.h"
#include "model/predict.h"

namespace cgmem::model::detail {

// The memory.high throttle of the verdict's scope (high = UINT64_MAX for max).
Throttle memory_throttle(const Verdict& v, const VerdictInput& in);

// The "fits" line: within the limits, or over memory.high below the usage
// where the kernel starts to sleep.
std::string fits_summary(const Verdict& v, const VerdictInput& in);

// Fills kind, costs and summary where v.swap->allowed > 0.
void swap_verdict(Verdict& v, const VerdictInput& in);

}  // namespace cgmem::model::detail
