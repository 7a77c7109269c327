// Reading systemd's values and unit files.
#include <charconv>
#include <cmath>
#include <fmt/format.h>

#include "managers/systemd.h"

namespace cgmem::managers {
namespace {

constexpr std::string_view kWhitespace = " \t\n\r";

std::string_view trim(std::string_view s) {
  while (!s.empty() && kWhitespace.find(s.front()) != std::string_view::npos) s.remove_prefix(1);
  while (!s.empty() && kWhitespace.find(s.back()) != std::string_view::npos) s.remove_suffix(1);
  return s;
}

struct Suffix {
  std::string_view text;
  uint64_t factor;
};

// parse_size()'s table for base 1024, biggest first: each part of a
// compound size ("1G 512M") must use a smaller suffix than the one before.
constexpr Suffix kIec[] = {
    {"E", 1ULL << 60}, {"P", 1ULL << 50}, {"T", 1ULL << 40}, {"G", 1ULL << 30},
    {"M", 1ULL << 20}, {"K", 1ULL << 10}, {"B", 1},          {"", 1},
};

// Parses one decimal integer from the front of s; false if none.
bool take_digits(std::string_view& s, uint64_t& value, int& count) {
  count = 0, value = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (p == s.data()) return false;
  if (ec == std::errc::result_out_of_range) return count = -1, true;
  count = static_cast<int>(p - s.data());
  s.remove_prefix(static_cast<size_t>(count));
  return true;
}

}  // namespace

Result<uint64_t> parse_systemd_size(std::string_view text) {
  std::string_view s = text;
  unsigned __int128 total = 0;
  size_t start = 0;
  do {
    s = s.substr(std::min(s.find_first_not_of(kWhitespace), s.size()));
    if (!s.empty() && s[0] == '-') return fail("a size cannot be negative");
    if (s.size() > 1 && s[0] == '+' && s[1] >= '0' && s[1] <= '9') s.remove_prefix(1);  // strtoull()'s sign
    uint64_t whole = 0;
    int count = 0;
    if (!take_digits(s, whole, count)) return fail("not a number");
    if (count < 0) return fail("larger than 2^64-1 bytes");
    // An optional fraction: "1.5G". parse_size() keeps it as a double.
    long double frac = 0;
    if (!s.empty() && s[0] == '.') {
      s.remove_prefix(1);
      uint64_t digits = 0;
      int n = 0;
      if (take_digits(s, digits, n) && n > 0) frac = digits / std::pow(10.0L, n);
    }
    s = s.substr(std::min(s.find_first_not_of(kWhitespace), s.size()));
    size_t i = start;
    while (i < std::size(kIec) && !s.starts_with(kIec[i].text)) ++i;
    if (i == std::size(kIec)) return fail("unknown suffix");
    total += static_cast<unsigned __int128>(whole) * kIec[i].factor +
             static_cast<uint64_t>(frac * kIec[i].factor);
    if (total > UINT64_MAX) return fail("larger than 2^64-1 bytes");
    s.remove_prefix(kIec[i].text.size());
    start = i + 1;
  } while (!s.empty());
  return static_cast<uint64_t>(total);
}

std::optional<int64_t> parse_permyriad(std::string_view text) {
  // "N‱"; "N‰" or "N.D‰"; "N%", "N.D%" or "N.DD%" (percent-util.c).
  struct Form {
    std::string_view sign;
    int scale;     // permyriad per unit
    int decimals;  // at most this many digits after the point
  };
  static constexpr Form kForms[] = {{"\u2031", 1, 0}, {"\u2030", 10, 1}, {"%", 100, 2}};
  for (const auto& form : kForms) {
    if (!text.ends_with(form.sign)) continue;
    std::string_view number = text.substr(0, text.size() - form.sign.size());
    int64_t whole = 0;
    auto [p, ec] = std::from_chars(number.data(), number.data() + number.size(), whole);
    if (ec != std::errc() || p == number.data() || whole < 0 || number[0] == '+') return -1;
    std::string_view rest(p, static_cast<size_t>(number.data() + number.size() - p));
    int64_t frac = 0, unit = form.scale;
    if (!rest.empty()) {
      if (rest[0] != '.' || rest.size() < 2 || static_cast<int>(rest.size() - 1) > form.decimals)
        return -1;
      for (char c : rest.substr(1)) {
        if (c < '0' || c > '9') return -1;
        unit /= 10;
        frac += (c - '0') * unit;
      }
    }
    if (whole > 10000) return -1;
    int64_t v = whole * form.scale + frac;
    return v > 10000 ? -1 : v;
  }
  return std::nullopt;
}

Result<SystemdProperty> parse_property_assignment(std::string_view text) {
  auto eq = text.find('=');
  if (eq == std::string_view::npos || trim(text.substr(0, eq)).empty())
    return fail(fmt::format("-p '{}': not a Name=Value assignment", text), {},
                "e.g. -p MemoryMax=256M");
  return SystemdProperty{std::string(trim(text.substr(0, eq))),
                         std::string(trim(text.substr(eq + 1))), "-p"};
}

Result<SystemdUnit> parse_unit_file(std::string_view text, std::string_view name) {
  static constexpr std::string_view kCgroupSections[] = {"Service", "Scope", "Slice",
                                                         "Socket",  "Mount", "Swap"};
  SystemdUnit unit;
  bool typed = false;
  std::string section, pending;
  int line_no = 0, first_line = 0;
  for (size_t pos = 0; pos <= text.size();) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view raw = text.substr(pos, end - pos);
    pos = end + 1, ++line_no;
    if (pending.empty()) first_line = line_no;
    std::string_view line = trim(raw);
    if (pending.empty() && (line.empty() || line[0] == '#' || line[0] == ';')) continue;
    if (line.ends_with('\\')) {  // continuation: the backslash becomes a space
      pending += std::string(line.substr(0, line.size() - 1)) + " ";
      continue;
    }
    std::string joined = pending + std::string(line);
    pending.clear();
    std::string_view l = trim(joined);
    if (l.empty()) continue;
    if (l.front() == '[') {
      if (l.back() != ']')
        return fail(fmt::format("{}:{}: '{}' is not a section header", name, first_line, l));
      section = std::string(l.substr(1, l.size() - 2));
      for (auto s : kCgroupSections)
        if (section == s && !typed) {
          unit.type = std::string(s), typed = true;
          for (auto& c : unit.type) c = static_cast<char>(std::tolower(c));
        }
      continue;
    }
    auto eq = l.find('=');
    if (eq == std::string_view::npos)
      return fail(fmt::format("{}:{}: '{}' is not a Name=Value line", name, first_line, l));
    SystemdProperty prop{std::string(trim(l.substr(0, eq))), std::string(trim(l.substr(eq + 1))),
                         fmt::format("{}:{}", name, first_line)};
    bool cgroup_section = false;
    for (auto s : kCgroupSections) cgroup_section |= section == s;
    if (!cgroup_section) {
      if (prop.name.starts_with("Memory") || prop.name == "OOMPolicy")
        unit.notes.push_back(fmt::format("{}: {}= in section [{}] is ignored by systemd",
                                         prop.origin, prop.name, section));
      continue;
    }
    unit.properties.push_back(std::move(prop));
  }
  return unit;
}

}  // namespace cgmem::managers
