#include "lab/json_line.h"

#include <charconv>
#include <cstring>

namespace cgmem::lab {

void JsonLine::raw(std::string_view text) {
  if (overflow_ || text.empty()) return;  // an empty view may have no data pointer, which memcpy may not take
  if (text.size() > buf_.size() - len_) {
    overflow_ = true;
    return;
  }
  std::memcpy(buf_.data() + len_, text.data(), text.size());
  len_ += text.size();
}

JsonLine& JsonLine::key(std::string_view name) {
  if (need_comma_) raw(",");
  raw("\"");
  raw(name);
  raw("\":");
  need_comma_ = false;
  return *this;
}

JsonLine& JsonLine::u64(uint64_t value) {
  char digits[24];
  auto [end, ec] = std::to_chars(digits, digits + sizeof digits, value);
  raw(std::string_view(digits, static_cast<size_t>(end - digits)));
  need_comma_ = true;
  return *this;
}

JsonLine& JsonLine::i64(int64_t value) {
  char digits[24];
  auto [end, ec] = std::to_chars(digits, digits + sizeof digits, value);
  raw(std::string_view(digits, static_cast<size_t>(end - digits)));
  need_comma_ = true;
  return *this;
}

JsonLine& JsonLine::f64(double value) {
  char digits[32];
  auto [end, ec] = std::to_chars(digits, digits + sizeof digits, value);
  raw(std::string_view(digits, static_cast<size_t>(end - digits)));
  need_comma_ = true;
  return *this;
}

JsonLine& JsonLine::str(std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  raw("\"");
  size_t start = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    raw(text.substr(start, i - start));
    if (c == '"' || c == '\\') {
      char escaped[2] = {'\\', static_cast<char>(c)};
      raw(std::string_view(escaped, 2));
    } else {
      char escaped[6] = {'\\', 'u', '0', '0', kHex[c >> 4], kHex[c & 15]};
      raw(std::string_view(escaped, 6));
    }
    start = i + 1;
  }
  raw(text.substr(start));
  raw("\"");
  need_comma_ = true;
  return *this;
}

}  // namespace cgmem::lab
