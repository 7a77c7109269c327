// Durations, read and written: the one parser of every duration a user hands
// cgmem ("100ms", "2s", "1.5s", "500us", "3m", "2h", "7d", or a bare number
// in the unit the option names: --cap 20 is seconds, --interval 100 is
// milliseconds), on the command line and in a matrix spec alike, and the
// three ways cgmem writes one. common/size.h is the same for bytes.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "common/error.h"

namespace cgmem {

// The unit of a bare number, in nanoseconds.
enum class TimeUnit : uint64_t { us = 1'000, ms = 1'000'000, s = 1'000'000'000 };

inline constexpr uint64_t kDayNs = 86'400ULL * 1'000'000'000ULL;

// Nanoseconds, rounded down. Rejects empty text, signs, nan and inf, unknown
// units, zero and anything above `longest_ns` (a day unless a caller, such
// as a history's range, takes longer).
Result<uint64_t> parse_duration(std::string_view text, TimeUnit bare_unit, uint64_t longest_ns = kDayNs);

enum class DurationStyle {
  compact,  // a table cell: "850ms", "1.5s", "12m", "3.2h", "4d"; "-" for none
  prose,    // a sentence: "0.5 ms", "1.23 s", "1.5 min", "2.0 h"
  clock,    // elapsed time on a progress line: "2:13", "1:02:03"
};

// `seconds` as text in `style`. Negative, nan and inf are "-" in compact,
// and 0 on a clock.
std::string format_duration(double seconds, DurationStyle style);

}  // namespace cgmem
