// Reading what a user hands to `cgmem translate`: files and KEY=VALUE pairs
// (a manager's own values, such as feature gates, are read next to that
// manager). Untrusted input is bounded before any parser sees it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "common/error.h"

namespace cgmem::managers {

// A unit file, pod, compose file, config.json or cgroup.conf is far below
// this; a bigger file is refused before it is read.
inline constexpr uint64_t kMaxInputBytes = 4 << 20;
// Deeper YAML nesting than any pod or compose file needs; yaml-cpp parses
// nesting by recursion, so a deep document is refused before it parses.
inline constexpr int kMaxYamlDepth = 64;
// Aliases (*name) per document; yaml-cpp shares aliased nodes, this bounds
// the work of walking them.
inline constexpr int kMaxYamlAliases = 1000;

// The whole file: an error for a directory, a non-regular file bigger than
// the limit, or a file over kMaxInputBytes (each saying so), with errno
// for open and read failures.
Result<std::string> read_input_file(const std::string& path, uint64_t max_bytes = kMaxInputBytes);

// Size, nesting (flow brackets and block indentation) and alias count of a
// YAML text, checked by a linear scan before yaml-cpp parses it.
Result<void> check_yaml_shape(std::string_view text, std::string_view name);

// "KEY=VALUE" -> {KEY, VALUE}; `flag` names the option in the error.
Result<std::pair<std::string, std::string>> key_value(std::string_view text, const char* flag);

}  // namespace cgmem::managers
