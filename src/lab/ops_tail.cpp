#include "lab/ops_tail.h"

#include <unistd.h>

#include <charconv>

#include "run_format/run_format.h"

namespace cgmem::lab {

uint64_t lat_ns_of(std::string_view line) {
  static constexpr auto kLatNs = run_format::json_key(run_format::op_key::kLatNs);
  constexpr std::string_view kKey(kLatNs.data(), kLatNs.size());
  size_t at = line.find(kKey);
  if (at == std::string_view::npos) return 0;
  uint64_t value = 0;
  const char* begin = line.data() + at + kKey.size();
  std::from_chars(begin, line.data() + line.size(), value);
  return value;
}

OpsTail::Scan OpsTail::scan() {
  Scan out;
  for (;;) {
    ssize_t n = ::pread(fd_, buffer_.data(), buffer_.size(), static_cast<off_t>(offset_));
    if (n <= 0) break;
    std::string_view text(buffer_.data(), static_cast<size_t>(n));
    size_t last = text.rfind('\n');
    if (last == std::string_view::npos) break;  // a partial line: next time
    text = text.substr(0, last + 1);
    offset_ += text.size();
    while (!text.empty()) {
      size_t eol = text.find('\n');
      std::string_view line = text.substr(0, eol);
      text.remove_prefix(eol + 1);
      ++out.lines;
      out.slowest_lat_ns = std::max(out.slowest_lat_ns, lat_ns_of(line));
    }
    if (static_cast<size_t>(n) < buffer_.size()) break;
  }
  total_ += out.lines;
  return out;
}

}  // namespace cgmem::lab
