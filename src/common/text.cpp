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

namespace {

// The length of the valid UTF-8 sequence at the start of s (1 to 4), or 0
// when s does not start with one (a stray continuation byte, an overlong
// form, a surrogate, past U+10FFFF, cut short).
size_t utf8_length(std::string_view s) {
  auto b = [&](size_t i) { return static_cast<unsigned char>(s[i]); };
  auto cont = [&](size_t i) { return i < s.size() && (b(i) & 0xC0) == 0x80; };
  unsigned char c = b(0);
  if (c < 0x80) return 1;
  if (c >= 0xC2 && c <= 0xDF) return cont(1) ? 2 : 0;
  if (c >= 0xE0 && c <= 0xEF) {
    if (!cont(1) || !cont(2)) return 0;
    if (c == 0xE0 && b(1) < 0xA0) return 0;   // overlong
    if (c == 0xED && b(1) >= 0xA0) return 0;  // UTF-16 surrogate
    return 3;
  }
  if (c >= 0xF0 && c <= 0xF4) {
    if (!cont(1) || !cont(2) || !cont(3)) return 0;
    if (c == 0xF0 && b(1) < 0x90) return 0;   // overlong
    if (c == 0xF4 && b(1) >= 0x90) return 0;  // past U+10FFFF
    return 4;
  }
  return 0;
}

// A valid multi-byte sequence that still acts on a terminal or reorders text.
bool hostile_sequence(std::string_view seq) {
  auto b = [&](size_t i) { return static_cast<unsigned char>(seq[i]); };
  if (seq.size() == 2) return b(0) == 0xC2 && b(1) < 0xA0;  // C1 controls, CSI among them
  if (seq.size() != 3 || b(0) != 0xE2) return false;
  if (b(1) == 0x80) return b(2) >= 0xA8 && b(2) <= 0xAE;   // U+2028..202E
  if (b(1) == 0x81) return b(2) >= 0xA6 && b(2) <= 0xA9;   // U+2066..2069
  return false;
}

void hex_escape(std::string& out, std::string_view bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  for (char ch : bytes) {
    auto c = static_cast<unsigned char>(ch);
    out += "\\x";
    out += kHex[c >> 4];
    out += kHex[c & 15];
  }
}

}  // namespace

std::string visible(std::string_view text, Backslash backslash) {
  std::string out;
  out.reserve(text.size());
  while (!text.empty()) {
    char c = text.front();
    size_t n = utf8_length(text);
    if (n == 0) n = 1;
    std::string_view seq = text.substr(0, n);
    text.remove_prefix(n);
    if (c == '\\') out += backslash == Backslash::escape ? "\\\\" : "\\";
    else if (c == '\n') out += "\\n";
    else if (c == '\r') out += "\\r";
    else if (c == '\t') out += "\\t";
    else if (n == 1 && (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f))
      hex_escape(out, seq);
    else if (hostile_sequence(seq)) hex_escape(out, seq);
    else out += seq;
  }
  return out;
}

std::string_view utf8_prefix(std::string_view text, size_t bytes) noexcept {
  if (text.size() <= bytes) return text;
  size_t end = bytes;
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
  return text.substr(0, end);
}

}  // namespace cgmem
