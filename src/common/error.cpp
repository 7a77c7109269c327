#include "common/error.h"

#include <cstring>

#include "common/text.h"

namespace cgmem {

std::string Error::message() const {
  std::string out = what;
  if (!path.empty()) out += ": " + path;
  if (err != 0) out += std::string(": ") + std::strerror(err);
  if (!hint.empty()) out += " (" + hint + ")";
  // An error often quotes its input (a line of a unit file, a file name): a
  // raw ESC or newline from it must not reach the terminal or split the line.
  return visible(out, Backslash::keep);
}

std::unexpected<Error> sys_error(std::string what, std::string path, std::string hint) {
  int saved = errno;
  return std::unexpected(Error{std::move(what), saved, std::move(path), std::move(hint)});
}

std::unexpected<Error> fail(std::string what, std::string path, std::string hint) {
  return std::unexpected(Error{std::move(what), 0, std::move(path), std::move(hint)});
}

}  // namespace cgmem
