// --own-code: charge the workload's own code pages to its cgroup, as a
// container's binary is on its first start. The workload copies its binary
// (/proc/self/exe) to a fresh file in its working directory (the run disk),
// fsyncs it, drops it from the page cache (posix_fadvise DONTNEED), checks
// with mincore() that 0 of its pages are cached, and execs the copy. The copy
// finds its path in CGMEM_OWN_CODE_COPY, unlinks the file (the mapping keeps
// the inode) and runs the workload. Every page of code it then touches is
// read from disk and charged to its own cgroup, where reclaim can take it.
//
// --own-code-size SIZE: the study's program was an interpreter that runs much
// of its code on every op; a static cgmem runs a few pages of it, too few to
// thrash reliably (4 of 7 runs were OOM-killed after 1 to 3.5 s). So the
// copy is padded to SIZE with repeats of the binary's own bytes (the ELF
// loader ignores what follows its segments), and the copy maps the whole file
// PROT_READ|PROT_EXEC and reads one byte of every page on every op, as an
// interpreter walks its code. Mapped executable, as code is: the classic LRU keeps referenced
// executable file pages active (mm/vmscan.c); MGLRU, on in Debian's 6.12,
// treats them as any mapped file page.
#pragma once

#include <cstddef>
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

// Writes `from` to `to`, then repeats of `from` up to `size` bytes in all
// (nothing more when `size` is at most the size of `from`), fsyncs it and
// drops it from the page cache.
Result<void> copy_padded(const std::string& from, const std::string& to, uint64_t size);

// Copies (padded to `size`), drops, checks and execs `cgmem ARGS` from the
// copy; returns only on failure. `args` are the words after the program name;
// `note` gets the line that says how much of the copy was cached before the exec.
Result<void> exec_own_copy(std::span<char*> args, uint64_t size, const LineSink& note);

// In the exec'd copy: unlinks the copy (named by the environment variable)
// and clears the variable. Returns true when this process is the copy.
bool adopt_own_copy();

// A whole file mapped PROT_READ|PROT_EXEC (private): the code --own-code-size
// walks. Move-only; unmapped when destroyed.
class CodeMap {
 public:
  static Result<CodeMap> map(const std::string& path);  // "/proc/self/exe" in the copy
  CodeMap(CodeMap&& other) noexcept;
  CodeMap& operator=(CodeMap&&) = delete;
  CodeMap(const CodeMap&) = delete;
  ~CodeMap();

  // Reads the first byte of every page, faulting in what reclaim took;
  // returns their sum, so the reads cannot be left out.
  uint64_t walk() const;
  size_t bytes() const { return bytes_; }

 private:
  CodeMap(const unsigned char* base, size_t bytes, size_t page) : base_(base), bytes_(bytes), page_(page) {}
  const unsigned char* base_;
  size_t bytes_;
  size_t page_;
};

}  // namespace cgmem::lab
