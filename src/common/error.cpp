#include "common/error.h"

#include <cstring>

namespace cgmem {

std::string Error::message() const {
  std::string out = what;
  if (!path.empty()) out += ": " + path;
  if (err != 0) out += std::string(": ") + std::strerror(err);
  if (!hint.empty()) out += " (" + hint + ")";
  return out;
}

std::unexpected<Error> sys_error(std::string what, std::string path, std::string hint) {
  int saved = errno;
  return std::unexpected(Error{std::move(what), saved, std::move(path), std::move(hint)});
}

std::unexpected<Error> fail(std::string what, std::string path, std::string hint) {
  return std::unexpected(Error{std::move(what), 0, std::move(path), std::move(hint)});
}

}  // namespace cgmem
