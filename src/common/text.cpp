#include "common/text.h"

#include <charconv>
#include <cmath>

namespace cgmem {

namespace {
bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
}  // namespace

std::string_view trim_end(std::string_view text) noexcept {
  while (!text.empty() && is_space(text.back())) text.remove_suffix(1);
  return text;
}

std::string_view trim(std::string_view text) noexcept {
  while (!text.empty() && is_space(text.front())) text.remove_prefix(1);
  return trim_end(text);
}

std::optional<uint64_t> to_u64(std::string_view text) noexcept {
  // from_chars accepts no '+' and no spaces for unsigned types, but it does
  // accept a leading '-' for nothing; check the first byte is a digit anyway.
  if (text.empty() || text.front() < '0' || text.front() > '9') return std::nullopt;
  uint64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

std::optional<int64_t> to_i64(std::string_view text) noexcept {
  std::string_view digits = text.starts_with('-') ? text.substr(1) : text;
  if (digits.empty() || digits.front() < '0' || digits.front() > '9') return std::nullopt;
  int64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

std::optional<Limit> to_limit(std::string_view text) noexcept {
  if (text == "max") return Limit::max();
  auto value = to_u64(text);
  if (!value) return std::nullopt;
  return Limit::of(*value);
}

std::optional<double> to_double(std::string_view text) noexcept {
  if (text.empty() || text.front() < '0' || text.front() > '9') return std::nullopt;
  double value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value,
                                   std::chars_format::fixed);
  if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(value)) {
    return std::nullopt;
  }
  return value;
}

std::string_view next_line(std::string_view& rest) noexcept {
  size_t end = rest.find('\n');
  std::string_view line = rest.substr(0, end);
  rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
  return line;
}

std::string_view next_token(std::string_view& rest, char sep) noexcept {
  while (!rest.empty() && rest.front() == sep) rest.remove_prefix(1);
  size_t end = rest.find(sep);
  std::string_view token = rest.substr(0, end);
  rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
  return token;
}

std::string_view next_word(std::string_view& rest) noexcept {
  auto blank = [](char c) { return c == ' ' || c == '\t'; };
  while (!rest.empty() && blank(rest.front())) rest.remove_prefix(1);
  size_t end = 0;
  while (end < rest.size() && !blank(rest[end])) ++end;
  std::string_view word = rest.substr(0, end);
  rest.remove_prefix(end);
  return word;
}

std::string quote(std::string_view text) {
  std::string_view line = text.substr(0, text.find('\n'));
  std::string out = "'";
  for (char c : line.substr(0, 60)) out += (c >= 0x20 && c < 0x7f) ? c : '?';
  if (line.size() > 60) out += "...";
  return out + "'";
}

}  // namespace cgmem
