// Nested-keyed files: one line per block device, "MAJ:MIN key=value ...".
//
//   io.stat   254:0 rbytes=16777216 wbytes=0 rios=128 wios=0 dbytes=0 dios=0
//   io.max    254:0 rbps=104857600 wbps=104857600 riops=max wiops=max
//
// An empty file is normal (no I/O yet, no limit set) and parses to no
// entries. A line that does not start with MAJ:MIN is counted and skipped;
// a non-empty file with no well-formed line is an error.
#pragma once

#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cgroup/flat_keyed.h"
#include "common/text.h"
#include "common/error.h"
#include "common/size.h"

namespace cgmem::cgroup {

struct DeviceId {
  uint32_t major = 0, minor = 0;
  auto operator<=>(const DeviceId&) const = default;
  std::string text() const;  // "254:0"
};

// "254:0" -> DeviceId; nullopt on anything else.
std::optional<DeviceId> to_device(std::string_view text) noexcept;

// Calls f(device, key, value) for every key=value of every well-formed line,
// allocating nothing; returns the number of malformed lines.
template <typename F>
size_t for_each_nested(std::string_view text, F&& f) {
  size_t malformed = 0;
  while (!text.empty()) {
    std::string_view line = trim_end(next_line(text));
    if (line.empty()) continue;
    auto device = to_device(next_token(line));
    if (!device) {
      ++malformed;
      continue;
    }
    while (!line.empty()) {
      std::string_view token = next_token(line);
      size_t eq = token.find('=');
      if (eq != std::string_view::npos && eq > 0) f(*device, token.substr(0, eq), token.substr(eq + 1));
    }
  }
  return malformed;
}

// io.max: bytes per second and I/Os per second, each a number or "max".
struct IoMax {
  DeviceId device;
  std::optional<Limit> rbps, wbps, riops, wiops;
  bool operator==(const IoMax&) const = default;
};
Result<std::vector<IoMax>> parse_io_max(std::string_view text,
                                        std::string_view source = "io.max");

// The line to write to io.max: "254:0 rbps=20971520 wbps=max"; fields left
// empty are not written (the kernel keeps their current value).
std::string format_io_max(const IoMax& entry);

}  // namespace cgmem::cgroup
