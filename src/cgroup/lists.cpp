#include "cgroup/lists.h"

#include <limits>

#include "common/text.h"

namespace cgmem::cgroup {

Result<std::vector<pid_t>> parse_procs(std::string_view text, std::string_view source) {
  std::vector<pid_t> out;
  std::string_view rest = text;
  while (!rest.empty()) {
    auto pid = to_u64(trim(next_line(rest)));
    if (pid && *pid > 0 && *pid <= static_cast<uint64_t>(std::numeric_limits<pid_t>::max())) {
      out.push_back(static_cast<pid_t>(*pid));
    }
  }
  if (out.empty() && !trim(text).empty()) {
    return fail("parse " + std::string(source) + ": no pid in " + quote(trim(text)));
  }
  return out;
}

std::vector<std::string> parse_controllers(std::string_view text) {
  std::vector<std::string> out;
  std::string_view rest = text;
  while (!rest.empty()) {
    std::string_view line = trim(next_line(rest));
    while (!line.empty()) {
      std::string_view word = trim(next_token(line));
      if (!word.empty()) out.emplace_back(word);
    }
  }
  return out;
}

bool has_controller(std::string_view text, std::string_view name) noexcept {
  std::string_view rest = trim(text);
  while (!rest.empty()) {
    std::string_view line = trim(next_line(rest));
    while (!line.empty()) {
      if (trim(next_token(line)) == name) return true;
    }
  }
  return false;
}

}  // namespace cgmem::cgroup
