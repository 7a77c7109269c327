// Reading a JSON-lines file that another process may still be appending to,
// or that a crash cut short: whole lines are handed to a callback; a last
// line without its newline is counted as truncated and skipped, never fatal.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "common/error.h"
#include "report/run.h"

namespace cgmem::report {

// A read-only view of a whole file (mmap). Empty files give an empty view.
class MappedFile {
 public:
  static Result<MappedFile> open(const std::string& path);
  MappedFile(MappedFile&& other) noexcept;
  MappedFile& operator=(MappedFile&&) = delete;
  MappedFile(const MappedFile&) = delete;
  ~MappedFile();
  std::string_view text() const { return {data_, size_}; }

 private:
  MappedFile(const char* data, size_t size) : data_(data), size_(size) {}
  const char* data_ = nullptr;
  size_t size_ = 0;
};

// Calls on_line(line) for each complete line (blank lines skipped); on_line
// returns false for a line it could not use, which is counted in `bad`.
template <typename OnLine>
LineCounts for_each_line(std::string_view text, OnLine&& on_line) {
  LineCounts counts;
  const char* p = text.data();
  const char* end = p + text.size();
  while (p < end) {
    const char* nl = static_cast<const char*>(memchr(p, '\n', static_cast<size_t>(end - p)));
    if (!nl) {
      counts.truncated_last = 1;
      break;
    }
    std::string_view line(p, static_cast<size_t>(nl - p));
    p = nl + 1;
    if (line.empty()) continue;
    ++counts.read;
    if (!on_line(line)) ++counts.bad;
  }
  return counts;
}

}  // namespace cgmem::report
