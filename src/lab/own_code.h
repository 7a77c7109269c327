// --own-code: charge the workload's own code pages to its cgroup, as a
// container's binary is on its first start. The workload copies its binary
// (/proc/self/exe) to a fresh file in its working directory (the run disk),
// fsyncs it, drops it from the page cache (posix_fadvise DONTNEED), checks
// with mincore() that 0 of its pages are cached, and execs the copy. The copy
// finds its path in CGMEM_OWN_CODE_COPY, unlinks the file (the mapping keeps
// the inode) and runs the workload. Every page of code it then touches is
// read from disk and charged to its own cgroup, where reclaim can take it.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "common/error.h"
#include "common/sink.h"

namespace cgmem::lab {

inline constexpr char kOwnCodeEnv[] = "CGMEM_OWN_CODE_COPY";

// Pages of `path` in the page cache, and its size in pages.
struct Residency {
  uint64_t cached = 0;
  uint64_t pages = 0;
};
Result<Residency> residency(const std::string& path);

// Copies, drops, checks and execs `cgmem ARGS` from the copy; returns only
// on failure. `args` are the words after the program name; `note` gets the
// line that says how much of the copy was cached before the exec.
Result<void> exec_own_copy(std::span<char*> args, const LineSink& note);

// In the exec'd copy: unlinks the copy (named by the environment variable)
// and clears the variable. Returns true when this process is the copy.
bool adopt_own_copy();

}  // namespace cgmem::lab
