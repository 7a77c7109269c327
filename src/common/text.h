// Text primitives the parsers share (cgroupfs, procfs, the host probe, a
// manager's input). Nothing here allocates except quote(), which builds
// error messages, and visible(), which builds text for people.
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

// The text with every byte that could act on a terminal or a log shown as
// an escape, for printing a name the kernel or a file gave (a cgroup's
// directory, a task's comm): a name may hold any byte but '/' and NUL.
//   "\n" "\r" "\t"  for newline, carriage return, tab
//   "\\"           for a backslash (so an escape is never ambiguous)
//   "\xHH"         any other C0 control, DEL, a byte that is not part of
//                  valid UTF-8, and each byte of a C1 control (U+0080..9F),
//                  a bidirectional override (U+202A..202E, U+2066..2069)
//                  or a line/paragraph separator (U+2028, U+2029)
// Printable ASCII and other valid UTF-8 stay as they are, so the result is
// valid UTF-8 and prints as one line.
// Error messages keep a backslash as it is (Backslash::keep): they quote
// patterns and paths a person typed, and no name in them is parsed back.
enum class Backslash : bool { escape, keep };
std::string visible(std::string_view text, Backslash backslash = Backslash::escape);

// The first bytes of text (valid UTF-8, as visible() returns) that fit in
// at most `bytes`, never splitting a UTF-8 sequence.
std::string_view utf8_prefix(std::string_view text, size_t bytes) noexcept;

}  // namespace cgmem
