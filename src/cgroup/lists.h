// List files.
//
//   cgroup.procs            one pid per line: "158\n" (empty when unpopulated)
//   cgroup.controllers      space-separated: "cpu io memory\n"
//   cgroup.subtree_control  the same shape (often empty: "\n" or "")
#pragma once

#include <sys/types.h>

#include <string>
#include <string_view>
#include <vector>

#include "common/error.h"

namespace cgmem::cgroup {

// cgroup.procs / cgroup.threads. Empty text is an empty list; lines that are
// not a pid are skipped, and a non-empty file with no pid is an error.
Result<std::vector<pid_t>> parse_procs(std::string_view text,
                                       std::string_view source = "cgroup.procs");

// cgroup.controllers / cgroup.subtree_control: the words, in file order.
// Never fails (any text is a list of words).
std::vector<std::string> parse_controllers(std::string_view text);

// True when `name` is one of the words of a controllers file's text.
bool has_controller(std::string_view text, std::string_view name) noexcept;

}  // namespace cgmem::cgroup
