// Durations on the command line: "100ms", "2s", "1.5s", "500us", "3m", or a
// bare number in the unit the option names (--cap 20 is seconds,
// --interval 100 is milliseconds).
#pragma once

#include <cstdint>
#include <string_view>

#include "common/error.h"

namespace cgmem::lab {

enum class Unit : uint64_t { us = 1'000, ms = 1'000'000, s = 1'000'000'000 };

// Nanoseconds, rounded down. Rejects empty text, signs, nan and inf, unknown
// units, zero and anything above a day.
Result<uint64_t> parse_duration(std::string_view text, Unit bare_unit);

}  // namespace cgmem::lab
