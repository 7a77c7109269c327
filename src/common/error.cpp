#include "common/error.h"

#include <cstring>

namespace cgmem {

namespace {

// Control bytes as escapes: an error often quotes its input (a line of a
// unit file, a file name), and a raw ESC or newline from it must not reach
// the terminal or split the message.
std::string printable(const std::string& text) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(text.size());
  for (unsigned char c : text) {
    if (c >= 0x20 && c != 0x7f) {
      out.push_back(static_cast<char>(c));
    } else if (c == '\n') {
      out.append("\\n");
    } else if (c == '\t') {
      out.append("\\t");
    } else {
      out.append("\\x").push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  return out;
}

}  // namespace

std::string Error::message() const {
  std::string out = what;
  if (!path.empty()) out += ": " + path;
  if (err != 0) out += std::string(": ") + std::strerror(err);
  if (!hint.empty()) out += " (" + hint + ")";
  return printable(out);
}

std::unexpected<Error> sys_error(std::string what, std::string path, std::string hint) {
  int saved = errno;
  return std::unexpected(Error{std::move(what), saved, std::move(path), std::move(hint)});
}

std::unexpected<Error> fail(std::string what, std::string path, std::string hint) {
  return std::unexpected(Error{std::move(what), 0, std::move(path), std::move(hint)});
}

}  // namespace cgmem
