#include "common/duration.h"

#include <algorithm>

#include <charconv>
#include <cmath>
#include <fmt/format.h>

namespace cgmem {
namespace {

std::unexpected<Error> bad(std::string_view text, std::string_view why) {
  return fail(fmt::format("invalid duration '{}': {}", text, why), {},
              "use a number with a unit: 100ms, 2s, 1.5s, 500us, 3m, 2h");
}

// Nanoseconds per unit suffix, or 0 for an unknown suffix.
uint64_t unit_ns(std::string_view unit, TimeUnit bare) {
  if (unit.empty()) return static_cast<uint64_t>(bare);
  if (unit == "ns") return 1;
  if (unit == "us") return 1'000;
  if (unit == "ms") return 1'000'000;
  if (unit == "s") return 1'000'000'000;
  if (unit == "m" || unit == "min") return 60'000'000'000ULL;
  if (unit == "h") return 3'600'000'000'000ULL;
  if (unit == "d") return kDayNs;
  return 0;
}

}  // namespace

Result<uint64_t> parse_duration(std::string_view text, TimeUnit bare_unit, uint64_t longest_ns) {
  if (text.empty()) return bad(text, "empty");
  if (text[0] == '-' || text[0] == '+') return bad(text, "a duration has no sign");
  double value = 0;
  const char* end = text.data() + text.size();
  auto [p, ec] = std::from_chars(text.data(), end, value, std::chars_format::fixed);
  // from_chars takes "nan" and "inf" in any format: neither is a length of time.
  if (ec != std::errc() || !std::isfinite(value)) return bad(text, "not a number");
  std::string_view unit(p, static_cast<size_t>(end - p));
  uint64_t scale = unit_ns(unit, bare_unit);
  if (scale == 0) return bad(text, fmt::format("unknown unit '{}'", unit));
  long double ns = static_cast<long double>(value) * static_cast<long double>(scale);
  if (ns > static_cast<long double>(longest_ns))
    return bad(text, longest_ns == kDayNs ? std::string("longer than a day")
                                          : fmt::format("longer than {} days", longest_ns / kDayNs));
  if (ns < 1.0L) return bad(text, "must be more than zero");
  return static_cast<uint64_t>(ns);
}

std::string format_duration(double s, DurationStyle style) {
  switch (style) {
    case DurationStyle::compact:
      if (!std::isfinite(s) || s < 0) return "-";
      if (s < 1) return fmt::format("{:.0f}ms", s * 1e3);
      if (s < 60) return fmt::format("{:.1f}s", s);
      if (s < 3600) return fmt::format("{:.0f}m", s / 60);
      if (s < 86400 * 2) return fmt::format("{:.1f}h", s / 3600);
      return fmt::format("{:.0f}d", s / 86400);
    case DurationStyle::prose:
      if (s < 1) return fmt::format("{:.1f} ms", s * 1000);
      if (s < 120) return fmt::format("{:.2f} s", s);
      if (s < 7200) return fmt::format("{:.1f} min", s / 60);
      return fmt::format("{:.1f} h", s / 3600);
    case DurationStyle::clock: {
      auto whole = std::isfinite(s) ? static_cast<long>(std::lround(std::max(0.0, s))) : 0L;
      if (whole >= 3600) return fmt::format("{}:{:02}:{:02}", whole / 3600, whole / 60 % 60, whole % 60);
      return fmt::format("{}:{:02}", whole / 60, whole % 60);
    }
  }
  return "-";
}

}  // namespace cgmem
