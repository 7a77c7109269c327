#include "cgroup/single_value.h"

#include "common/text.h"

namespace cgmem::cgroup {

Result<Limit> parse_limit_file(std::string_view text, std::string_view source) {
  if (auto limit = parse_limit_value(text)) return *limit;
  return fail("parse " + std::string(source) + ": expected a number of bytes or 'max', got " +
              quote(text));
}

Result<uint64_t> parse_counter_file(std::string_view text, std::string_view source) {
  if (auto value = parse_counter_value(text)) return *value;
  return fail("parse " + std::string(source) + ": expected a number, got " + quote(text));
}

std::optional<uint64_t> parse_counter_value(std::string_view text) noexcept {
  return to_u64(trim_end(text));
}

std::optional<Limit> parse_limit_value(std::string_view text) noexcept {
  return to_limit(trim_end(text));
}

}  // namespace cgmem::cgroup
