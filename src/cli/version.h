// What this binary is: version, git commit, and a hash of the binary itself.
// Every run directory records these so a report can refuse mixed batches.
#pragma once

#include <string>
#include <string_view>

namespace cgmem {

std::string version();
std::string git_commit();
// FNV-1a 64 of /proc/self/exe, as 16 hex digits; "unknown" if unreadable.
std::string binary_hash();
// Where this binary is (/proc/self/exe); `if_unknown` when that cannot be read.
std::string self_exe(std::string_view if_unknown = "cgmem");

}  // namespace cgmem
