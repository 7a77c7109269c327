// Runs the real cgmem binary (CGMEM_BINARY, set by cgmem_test) as a user
// does, and returns what the user sees: stdout and stderr together, and the
// exit code. One copy for every test that checks a command end to end.
#pragma once

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

namespace cgmem::testing {

struct Output {
  std::string text;  // stdout and stderr together
  int code;
};

// `env` is prefixed to the command line, e.g. "PATH=/nowhere ".
inline Output run_cgmem(const std::string& args, const std::string& env = "") {
  std::string command = env + std::string(CGMEM_BINARY) + " " + args + " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  std::string text;
  std::array<char, 4096> buffer;
  while (size_t n = fread(buffer.data(), 1, buffer.size(), pipe)) text.append(buffer.data(), n);
  int status = pclose(pipe);
  return {text, WEXITSTATUS(status)};
}

}  // namespace cgmem::testing
