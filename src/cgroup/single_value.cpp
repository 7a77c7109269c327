#include "cgroup/single_value.h"

#include "common/text.h"

namespace cgmem::cgroup {

Result<Limit> parse_limit_file(std::string_view text, std::string_view source) {
  if (auto limit = to_limit(trim_end(text))) return *limit;
  return fail("parse " + std::string(source) + ": expected a number of bytes or 'max', got " +
              quote(text));
}

Result<uint64_t> parse_counter_file(std::string_view text, std::string_view source) {
  if (auto value = to_u64(trim_end(text))) return *value;
  return fail("parse " + std::string(source) + ": expected a number, got " + quote(text));
}

std::optional<uint64_t> parse_memory_current(std::string_view text) noexcept {
  return to_u64(trim_end(text));
}

}  // namespace cgmem::cgroup
