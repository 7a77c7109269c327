#include "cgroup/pressure.h"

#include <string>

#include "common/text.h"

namespace cgmem::cgroup {

std::optional<PressureLine> parse_pressure_fields(std::string_view fields) noexcept {
  PressureLine out;
  unsigned seen = 0;  // one bit per field
  while (!fields.empty()) {
    std::string_view token = next_token(fields);
    size_t eq = token.find('=');
    if (eq == std::string_view::npos) continue;
    std::string_view key = token.substr(0, eq), value = token.substr(eq + 1);
    auto set_avg = [&](double& member, unsigned bit) {
      auto v = to_double(value);
      if (v) member = *v, seen |= bit;
    };
    if (key == "avg10") set_avg(out.avg10, 1);
    if (key == "avg60") set_avg(out.avg60, 2);
    if (key == "avg300") set_avg(out.avg300, 4);
    if (key == "total") {
      auto v = to_u64(value);
      if (v) out.total_usec = *v, seen |= 8;
    }
  }
  if (seen != 15) return std::nullopt;
  return out;
}

Pressure parse_pressure_lines(std::string_view text) noexcept {
  Pressure out;
  while (!text.empty()) {
    std::string_view fields = trim_end(next_line(text));
    if (fields.empty()) continue;
    std::string_view kind = next_token(fields);
    auto parsed = parse_pressure_fields(fields);
    if (kind == "some" && parsed) {
      out.some = parsed;
    } else if (kind == "full" && parsed) {
      out.full = parsed;
    } else {
      ++out.malformed;
    }
  }
  return out;
}

Result<Pressure> parse_pressure(std::string_view text, std::string_view source) {
  Pressure out = parse_pressure_lines(text);
  if (!out.some && !out.full) {
    return fail("parse " + std::string(source) + ": no 'some' or 'full' line in " +
                quote(trim(text)));
  }
  return out;
}

}  // namespace cgmem::cgroup
