// What this binary is: version, git commit, and a hash of the binary itself.
// Every run directory records these so a report can refuse mixed batches.
#pragma once

#include <string>

namespace cgmem {

std::string version();
std::string git_commit();
// FNV-1a 64 of /proc/self/exe, as 16 hex digits; "unknown" if unreadable.
std::string binary_hash();

}  // namespace cgmem
