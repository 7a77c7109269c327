#include "cgroup/mountinfo.h"

#include "common/text.h"

namespace cgmem::cgroup {

namespace {

// "\040" -> ' ': the kernel's octal escapes in mountinfo paths.
std::string unescape(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\' && text.size() - i >= 4) {
      auto digit = [&](size_t k) { return text[i + k] >= '0' && text[i + k] <= '7'; };
      if (digit(1) && digit(2) && digit(3)) {
        out += static_cast<char>((text[i + 1] - '0') * 64 + (text[i + 2] - '0') * 8 + (text[i + 3] - '0'));
        i += 3;
        continue;
      }
    }
    out += text[i];
  }
  return out;
}

}  // namespace

std::vector<Mount> parse_mountinfo(std::string_view text) {
  std::vector<Mount> out;
  while (!text.empty()) {
    std::string_view line = trim_end(next_line(text));
    size_t dash = line.find(" - ");
    if (dash == std::string_view::npos) continue;
    std::string_view before = line.substr(0, dash), after = line.substr(dash + 3);
    std::string_view point;
    for (int field = 1; field <= 5 && !before.empty(); ++field) point = next_token(before);
    std::string_view type = next_token(after);
    next_token(after);  // source
    std::string_view options = next_token(after);
    if (point.empty() || type.empty()) continue;
    out.push_back(Mount{unescape(point), std::string(type), std::string(options)});
  }
  return out;
}

std::optional<std::string> cgroup2_mount(const std::vector<Mount>& mounts) {
  for (const auto& mount : mounts) {
    if (mount.fs_type == "cgroup2") return mount.mount_point;
  }
  return std::nullopt;
}

std::optional<std::string> cgroup1_mount(const std::vector<Mount>& mounts,
                                         std::string_view controller) {
  for (const auto& mount : mounts) {
    if (mount.fs_type != "cgroup") continue;
    std::string_view options = mount.super_options;
    while (!options.empty()) {
      if (next_token(options, ',') == controller) return mount.mount_point;
    }
  }
  return std::nullopt;
}

}  // namespace cgmem::cgroup
