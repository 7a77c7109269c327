// Single-value files: one number, or "max" for the limit files.
//
//   memory.current      "34140160\n"
//   memory.max          "67108864\n" or "max\n"
//   memory.swap.max     "max\n"
//
// `source` names the file in error messages (a file name or a full path).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "common/error.h"
#include "common/size.h"

namespace cgmem::cgroup {

// memory.max, memory.high, memory.low, memory.min, memory.swap.max, ...:
// bytes or "max". A trailing newline is allowed; nothing else is.
Result<Limit> parse_limit_file(std::string_view text, std::string_view source);

// memory.current, memory.peak, memory.swap.current, ...: bytes.
Result<uint64_t> parse_counter_file(std::string_view text, std::string_view source);

// Allocation-free, for hot loops: a counter file's bytes (memory.current)
// or a limit file's (memory.high) from a buffer; nullopt when the text is
// not what the kernel writes.
std::optional<uint64_t> parse_counter_value(std::string_view text) noexcept;
std::optional<Limit> parse_limit_value(std::string_view text) noexcept;

}  // namespace cgmem::cgroup
