// Text primitives the parsers share (cgroupfs, procfs, the host probe, a
// manager's input). Nothing here allocates except quote(), which builds
// error messages.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/size.h"

namespace cgmem {

// Removes trailing spaces, tabs and newlines ("max\n" -> "max").
std::string_view trim_end(std::string_view text) noexcept;

// Removes leading and trailing spaces, tabs and newlines.
std::string_view trim(std::string_view text) noexcept;

// A whole decimal u64 ("0" .. "18446744073709551615"), no sign, no spaces;
// nullopt on anything else, including overflow.
std::optional<uint64_t> to_u64(std::string_view text) noexcept;

// A whole decimal i64, an optional '-' then digits ("-1", "268435456"), no
// '+' and no spaces; nullopt on anything else, including overflow.
std::optional<int64_t> to_i64(std::string_view text) noexcept;

// A u64 or "max", as limit files hold them; nullopt on anything else.
std::optional<Limit> to_limit(std::string_view text) noexcept;

// A decimal like "48.30"; nullopt on anything else (no inf, nan, hex).
std::optional<double> to_double(std::string_view text) noexcept;

// Splits off the first line of rest (without its '\n'); rest keeps the
// remainder. For loops: while (!rest.empty()) { auto line = next_line(rest); }
std::string_view next_line(std::string_view& rest) noexcept;

// Splits off the next token separated by sep (runs of sep are skipped).
std::string_view next_token(std::string_view& rest, char sep = ' ') noexcept;

// Splits off the next word separated by spaces and/or tabs.
std::string_view next_word(std::string_view& rest) noexcept;

// The text quoted for an error message: first 60 bytes of its first line,
// unprintable bytes as '?', in single quotes.
std::string quote(std::string_view text);

}  // namespace cgmem
