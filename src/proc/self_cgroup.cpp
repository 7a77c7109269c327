#include "proc/self_cgroup.h"

#include "common/text.h"

namespace cgmem::proc {

std::optional<std::string> ProcCgroups::v2_path() const {
  for (const auto& line : lines) {
    if (line.hierarchy == 0 && line.controllers.empty()) return line.path;
  }
  return std::nullopt;
}

Result<ProcCgroups> parse_proc_cgroup(std::string_view text, std::string_view source) {
  ProcCgroups out;
  std::string_view rest = text;
  while (!rest.empty()) {
    std::string_view line = trim_end(next_line(rest));
    if (line.empty()) continue;
    size_t first = line.find(':');
    size_t second = first == std::string_view::npos ? first : line.find(':', first + 1);
    auto id = to_u64(line.substr(0, first));
    // The path may itself contain ':', so it is everything after the second.
    if (second == std::string_view::npos || second + 1 >= line.size() || !id || *id > 0xffffffffu ||
        line[second + 1] != '/') {
      ++out.malformed;
      continue;
    }
    CgroupLine parsed{static_cast<unsigned>(*id), {}, std::string(line.substr(second + 1))};
    std::string_view names = line.substr(first + 1, second - first - 1);
    while (!names.empty()) {
      std::string_view name = next_token(names, ',');
      if (!name.empty()) parsed.controllers.emplace_back(name);
    }
    out.lines.push_back(std::move(parsed));
  }
  if (out.lines.empty()) {
    return fail("parse " + std::string(source) + ": no 'ID:CONTROLLERS:PATH' line in " +
                quote(trim(text)));
  }
  return out;
}

}  // namespace cgmem::proc
