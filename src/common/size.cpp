#include "common/size.h"

#include <charconv>
#include <fmt/format.h>

namespace cgmem {
namespace {

constexpr const char* kSizeHint =
    "use bytes, or K/M/G/T (base 1024), e.g. 256M, 230.4MiB, 241590272";

std::unexpected<Error> bad_size(std::string_view text, std::string_view why) {
  return fail(fmt::format("invalid size '{}': {}", text, why), {}, kSizeHint);
}

// The multiplier for a unit suffix, or 0 when the suffix is not one.
uint64_t unit_multiplier(std::string_view unit) {
  if (unit.empty() || unit == "B") return 1;
  static constexpr std::string_view kLetters = "KMGTPE";
  char letter = unit[0];
  if (letter >= 'a' && letter <= 'z') letter = static_cast<char>(letter - 'a' + 'A');
  auto index = kLetters.find(letter);
  if (index == std::string_view::npos) return 0;
  std::string_view rest = unit.substr(1);
  if (!(rest.empty() || rest == "i" || rest == "iB")) return 0;
  return uint64_t{1} << (10 * (index + 1));
}

}  // namespace

Result<uint64_t> parse_bytes(std::string_view text) {
  if (text.empty()) return bad_size(text, "empty");
  if (text[0] == '-' || text[0] == '+') return bad_size(text, "a size has no sign");

  // Integer part.
  const char* begin = text.data();
  const char* end = text.data() + text.size();
  uint64_t whole = 0;
  auto [p, ec] = std::from_chars(begin, end, whole);
  if (ec == std::errc::result_out_of_range) return bad_size(text, "larger than 2^64-1 bytes");
  if (ec != std::errc()) return bad_size(text, "not a number");

  // Optional fraction, kept exact as digits / 10^n (at most 18 digits).
  uint64_t frac = 0, frac_scale = 1;
  if (p < end && *p == '.') {
    ++p;
    const char* digits = p;
    while (p < end && *p >= '0' && *p <= '9') {
      if (frac_scale < 1'000'000'000'000'000'000ULL) {
        frac = frac * 10 + static_cast<uint64_t>(*p - '0');
        frac_scale *= 10;
      }
      ++p;
    }
    if (p == digits) return bad_size(text, "no digits after the decimal point");
  }

  std::string_view unit(p, static_cast<size_t>(end - p));
  if (unit == "KB" || unit == "MB" || unit == "GB" || unit == "TB" || unit == "kB")
    return bad_size(text, fmt::format("'{}' is ambiguous (1000 or 1024?)", unit));
  uint64_t mult = unit_multiplier(unit);
  if (mult == 0) return bad_size(text, fmt::format("unknown unit '{}'", unit));
  if (unit.empty() || unit == "B") {
    if (frac != 0) return bad_size(text, "a byte count must be whole");
  }

  unsigned __int128 total = static_cast<unsigned __int128>(whole) * mult +
                            static_cast<unsigned __int128>(frac) * mult / frac_scale;
  if (total > UINT64_MAX) return bad_size(text, "larger than 2^64-1 bytes");
  return static_cast<uint64_t>(total);
}

Result<Limit> parse_limit(std::string_view text, SizeRules rules) {
  if (text == "max") {
    if (!rules.allow_max) return bad_size(text, "'max' is not allowed here");
    return Limit::max();
  }
  if (!text.empty() && text.back() == '%') {
    if (!rules.percent_of) return bad_size(text, "a percentage is not allowed here");
    std::string_view number = text.substr(0, text.size() - 1);
    double percent = 0;
    auto [p, ec] = std::from_chars(number.data(), number.data() + number.size(), percent);
    if (ec != std::errc() || p != number.data() + number.size() || number.empty() ||
        number[0] == '-' || number[0] == '+')
      return bad_size(text, "not a percentage");
    if (percent > 100.0) return bad_size(text, "more than 100%");
    auto bytes = static_cast<long double>(*rules.percent_of) * percent / 100.0L;
    return Limit::of(static_cast<uint64_t>(bytes));
  }
  auto bytes = parse_bytes(text);
  if (!bytes) return std::unexpected(bytes.error());
  return Limit::of(*bytes);
}

std::string format_bytes(uint64_t bytes) {
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  int unit = 0;
  while (unit < 6 && (bytes >> (10 * (unit + 1))) > 0) ++unit;
  if (unit == 0) return fmt::format("{}B", bytes);
  auto scale = uint64_t{1} << (10 * unit);
  if (bytes % scale == 0) return fmt::format("{}{}", bytes / scale, kUnits[unit]);
  // Nearest tenth: 241590272 is 230.398 MiB and reads "230.4MiB"; a value
  // that rounds up to 1024 of a unit reads as 1.0 of the next.
  auto tenths = [&] {
    return static_cast<uint64_t>((static_cast<unsigned __int128>(bytes) * 10 + scale / 2) / scale);
  };
  uint64_t t = tenths();
  if (t >= 10240 && unit < 6) scale = uint64_t{1} << (10 * ++unit), t = tenths();
  return fmt::format("{}.{}{}", t / 10, t % 10, kUnits[unit]);
}

std::string format_limit(const Limit& limit) {
  return limit.is_max() ? "max" : format_bytes(limit.bytes());
}

}  // namespace cgmem
