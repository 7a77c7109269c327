#include "managers/assignment.h"

#include <algorithm>
#include <cstdint>

namespace cgmem::managers {

Assignment& with_value(Assignment& a, Limit written, uint64_t page_size) {
  a.value = page_rounded(written, page_size);
  if (a.value.is_max() && !written.is_max())
    a.caveats.push_back("written as " + std::to_string(written.bytes()) +
                        "; at or above the kernel's page-counter maximum, it reads back as max");
  else if (a.value != written)
    a.caveats.push_back("written as " + std::to_string(written.bytes()) +
                        "; the kernel keeps whole pages");
  return a;
}

Assignment& add(Translation& out, Assignment assignment) {
  out.assignments.push_back(std::move(assignment));
  return out.assignments.back();
}

const Assignment* find(const Translation& translation, std::string_view scope,
                       std::string_view file) {
  for (const auto& a : translation.assignments)
    if (a.scope == scope && a.file == file) return &a;
  return nullptr;
}

std::vector<std::string> scopes(const Translation& translation) {
  std::vector<std::string> out;
  for (const auto& a : translation.assignments)
    if (std::find(out.begin(), out.end(), a.scope) == out.end()) out.push_back(a.scope);
  return out;
}

}  // namespace cgmem::managers
