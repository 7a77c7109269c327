#include "managers/go_units.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fmt/format.h>
#include <string>

namespace cgmem::managers {
namespace {

bool is_hex(char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; }
bool is_dec(char c) { return c >= '0' && c <= '9'; }

// Digits (of the given kind) with at most one '.', at least one digit.
bool mantissa(std::string_view s, size_t& i, bool (*digit)(char)) {
  bool any = false, dot = false;
  for (; i < s.size(); ++i) {
    if (digit(s[i])) any = true;
    else if (s[i] == '.' && !dot) dot = true;
    else break;
  }
  return any;
}

bool exponent(std::string_view s, size_t& i) {
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  size_t start = i;
  while (i < s.size() && is_dec(s[i])) ++i;
  return i > start;
}

// Go's strconv.ParseFloat syntax, without underscores and without the
// words inf/infinity/nan (a go-units number ends in a digit or '.').
bool go_float_syntax(std::string_view s) {
  size_t i = 0;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  if (s.substr(i, 2) == "0x" || s.substr(i, 2) == "0X") {
    i += 2;
    if (!mantissa(s, i, is_hex) || i >= s.size() || (s[i] != 'p' && s[i] != 'P')) return false;
    ++i;
    return exponent(s, i) && i == s.size();
  }
  if (!mantissa(s, i, is_dec)) return false;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (!exponent(s, i)) return false;
  }
  return i == s.size();
}

Result<double> parse_float(std::string_view num) {
  if (!go_float_syntax(num))
    return fail(fmt::format("strconv.ParseFloat: parsing \"{}\": invalid syntax", num));
  std::string copy(num);
  errno = 0;
  double v = std::strtod(copy.c_str(), nullptr);
  if (errno == ERANGE && std::isinf(v))
    return fail(fmt::format("strconv.ParseFloat: parsing \"{}\": value out of range", num));
  return v;
}

std::unexpected<Error> bad_suffix(std::string_view sfx) {
  return fail(fmt::format("invalid suffix: '{}'", sfx));
}

Result<int64_t> to_int64(double v, std::string_view text) {
  if (!(v < 9223372036854775808.0))
    return fail(fmt::format("invalid size: '{}': 2^63 bytes or more (Go's int64 conversion is undefined there)",
                            text));
  return static_cast<int64_t>(v);
}

}  // namespace

Result<int64_t> parse_go_units_ram(std::string_view text) {
  std::string_view num, sfx;
  if (auto space = text.find(' '); space != std::string_view::npos) {
    num = text.substr(0, space), sfx = text.substr(space + 1);
  } else {
    auto sep = text.find_last_of("01234567890.");
    if (sep == std::string_view::npos) return fail(fmt::format("invalid size: '{}'", text));
    num = text.substr(0, sep + 1), sfx = text.substr(sep + 1);
  }
  auto size = parse_float(num);
  if (!size) return std::unexpected(size.error());
  if (*size < 0) return fail(fmt::format("invalid size: '{}'", text));
  if (sfx.empty()) return to_int64(*size, text);
  if (sfx.size() > 3) return bad_suffix(sfx);
  std::string lower(sfx);
  for (auto& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower[0] == 'b') return lower.size() > 1 ? bad_suffix(lower) : to_int64(*size, text);
  static constexpr std::string_view kUnits = "kmgtp";
  auto at = kUnits.find(lower[0]);
  if (at == std::string_view::npos) return bad_suffix(lower);
  if ((lower.size() == 2 && lower[1] != 'b') || (lower.size() == 3 && lower.substr(1) != "ib"))
    return bad_suffix(lower);
  return to_int64(*size * static_cast<double>(1ULL << (10 * (at + 1))), text);
}

}  // namespace cgmem::managers
