// Durations on the command line: "100ms", "2s", "1.5s", "500us", "3m", "2h",
// "7d", or a bare number in the unit the option names (--cap 20 is seconds,
// --interval 100 is milliseconds).
#pragma once

#include <cstdint>
#include <string_view>

#include "common/error.h"

namespace cgmem::lab {

enum class Unit : uint64_t { us = 1'000, ms = 1'000'000, s = 1'000'000'000 };

inline constexpr uint64_t kDayNs = 86'400ULL * 1'000'000'000ULL;

// Nanoseconds, rounded down. Rejects empty text, signs, nan and inf, unknown
// units, zero and anything above `longest_ns` (a day unless a caller, such
// as a history's range, takes longer).
Result<uint64_t> parse_duration(std::string_view text, Unit bare_unit, uint64_t longest_ns = kDayNs);

}  // namespace cgmem::lab
