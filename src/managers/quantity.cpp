#include "managers/quantity.h"

#include <charconv>
#include <cmath>
#include <fmt/format.h>

namespace cgmem::managers {
namespace {

using Wide = unsigned __int128;
constexpr int64_t kInt64Max = INT64_MAX;

std::unexpected<Error> bad(std::string_view text, std::string_view why) {
  return fail(fmt::format("invalid Kubernetes quantity '{}': {}", text, why), {},
              "use e.g. 256Mi, 1Gi, 500M, 1e9 or a plain byte count");
}

struct Scale {
  std::string_view suffix;
  int pow2;   // value * 2^pow2 * 10^pow10
  int pow10;
};

constexpr Scale kScales[] = {
    {"Ki", 10, 0}, {"Mi", 20, 0}, {"Gi", 30, 0}, {"Ti", 40, 0}, {"Pi", 50, 0}, {"Ei", 60, 0},
    {"n", 0, -9},  {"u", 0, -6},  {"m", 0, -3},  {"", 0, 0},    {"k", 0, 3},   {"M", 0, 6},
    {"G", 0, 9},   {"T", 0, 12},  {"P", 0, 15},  {"E", 0, 18},
};

// 10^n for 0 <= n <= 38 (fits in 128 bits).
Wide pow10(int n) {
  Wide v = 1;
  for (int i = 0; i < n; ++i) v *= 10;
  return v;
}

// The suffix as powers of 2 and 10, or false when it is not one.
bool scale_of(std::string_view suffix, int& pow2, int& pow10_out) {
  for (const auto& s : kScales)
    if (suffix == s.suffix) return pow2 = s.pow2, pow10_out = s.pow10, true;
  if (suffix.size() < 2 || (suffix[0] != 'e' && suffix[0] != 'E')) return false;
  std::string_view e = suffix.substr(1);
  if (e[0] == '+') e.remove_prefix(1);
  int exponent = 0;
  auto [p, ec] = std::from_chars(e.data(), e.data() + e.size(), exponent);
  if (e.empty() || ec != std::errc() || p != e.data() + e.size()) return false;
  pow2 = 0, pow10_out = exponent;
  return true;
}

}  // namespace

Result<int64_t> parse_quantity_scaled(std::string_view text, int scale) {
  if (text.empty()) return bad(text, "empty");
  size_t i = 0;
  bool negative = false;
  if (text[0] == '+' || text[0] == '-') negative = text[0] == '-', ++i;

  // Digits, with at most one decimal point; kept as an integer and a scale.
  Wide digits = 0;
  int fraction = 0, count = 0;
  bool point = false;
  for (; i < text.size(); ++i) {
    char c = text[i];
    if (c == '.' && !point) { point = true; continue; }
    if (c < '0' || c > '9') break;
    if (count >= 20) return bad(text, "too many digits");
    digits = digits * 10 + static_cast<unsigned>(c - '0');
    ++count;
    if (point) ++fraction;
  }
  if (count == 0) return bad(text, "no number");
  if (negative && digits != 0) return bad(text, "a memory quantity cannot be negative");

  std::string_view suffix = text.substr(i);
  int pow2 = 0, pow10_suffix = 0;
  if (!scale_of(suffix, pow2, pow10_suffix))
    return bad(text, fmt::format("unknown suffix '{}'", suffix));
  if (pow10_suffix > 30 || pow10_suffix < -30) return bad(text, "exponent out of range");
  int net10 = pow10_suffix - fraction + scale;

  // A first look in floating point keeps the exact arithmetic in range.
  long double approx = static_cast<long double>(digits) * std::ldexp(1.0L, pow2) *
                       std::pow(10.0L, static_cast<long double>(net10));
  if (approx > 9.3e18L) return bad(text, "larger than 2^63-1 bytes");

  Wide bytes = 0;
  if (net10 >= 0) {
    bytes = (digits << pow2) * pow10(net10);
  } else if (-net10 > 38) {
    bytes = digits != 0 ? 1 : 0;  // a fraction of a byte rounds up to 1
  } else {
    Wide scale = pow10(-net10);
    bytes = ((digits << pow2) + scale - 1) / scale;  // Value() rounds up
  }
  if (bytes > static_cast<Wide>(kInt64Max)) return bad(text, "larger than 2^63-1 bytes");
  return static_cast<int64_t>(bytes);
}

Result<int64_t> parse_quantity(std::string_view text) { return parse_quantity_scaled(text, 0); }

}  // namespace cgmem::managers
