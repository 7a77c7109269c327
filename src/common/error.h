// Errors are values. Every fallible function in cgmem returns Result<T>;
// exceptions appear only at the CLI edge. An Error says what was tried,
// what the kernel said (errno text) and what the user can do about it.
#pragma once

#include <cerrno>
#include <expected>
#include <string>

namespace cgmem {

// The errnos a cgroup or process that went away gives (ENOENT, ENODEV,
// ESRCH): callers one layer up treat these as "no data", not failure.
inline bool vanished_errno(int err) { return err == ENOENT || err == ENODEV || err == ESRCH; }

struct Error {
  std::string what;  // what was tried, e.g. "write 64M to memory.max"
  int err = 0;       // errno when the kernel said no, else 0
  std::string path;  // the file involved, if any
  std::string hint;  // what the user can do, if we know

  // True when err is a vanished cgroup's or process's (vanished_errno).
  bool vanished() const { return vanished_errno(err); }

  // "what: path: strerror (hint)" with the empty parts left out, on one
  // line, shown with visible() (common/text.h): control bytes and bytes
  // that are not UTF-8 (from quoted input) appear as \n, \t or \xNN.
  std::string message() const;
};

template <typename T>
using Result = std::expected<T, Error>;

// The unexpected value for a failed system call, errno taken as it is now.
std::unexpected<Error> sys_error(std::string what, std::string path = {}, std::string hint = {});

// The unexpected value for a failure with no errno (bad input, bad format).
std::unexpected<Error> fail(std::string what, std::string path = {}, std::string hint = {});

}  // namespace cgmem
