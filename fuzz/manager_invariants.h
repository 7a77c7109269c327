// What every translation must hold, whatever the input: a value the kernel
// can read back (whole pages, or max) and 0/1 in a flag file.
#pragma once

#include "fuzz.h"
#include "managers/assignment.h"

namespace cgmem::fuzz {

inline void check_translation(const managers::Translation& t, uint64_t page_size) {
  for (const auto& a : t.assignments) {
    check(!a.file.empty() && !a.scope.empty() && !a.rule.empty());
    if (a.flag) check(!a.value.is_max() && a.value.bytes() <= 1);
    else if (a.set && !a.value.is_max()) check(a.value.bytes() % page_size == 0);
  }
}

}  // namespace cgmem::fuzz
