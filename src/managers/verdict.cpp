#include "managers/verdict.h"

namespace cgmem::managers {
namespace {

Limit file_value(const Translation& t, const std::string& scope, const char* file) {
  const Assignment* a = find(t, scope, file);
  return a && a->set ? a->value : Limit::max();
}

}  // namespace

model::CgroupLimits limits_of(const Translation& t, const std::string& scope) {
  return {.high = file_value(t, scope, "memory.high"),
          .max = file_value(t, scope, "memory.max"),
          .swap_max = file_value(t, scope, "memory.swap.max"),
          .swap_high = file_value(t, scope, "memory.swap.high")};
}

std::optional<model::Verdict> verdict(const Translation& t, const std::string& scope, const model::VerdictInput& in) {
  if (!find(t, scope, "memory.high") && !find(t, scope, "memory.max")) return std::nullopt;
  return model::verdict(limits_of(t, scope), in);
}

}  // namespace cgmem::managers
