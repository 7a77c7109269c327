// Runs the real cgmem binary (CGMEM_BINARY, set by cgmem_test) as a user
// does, and returns what the user sees. One copy for every test that checks
// a command end to end.
#pragma once

#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace cgmem::testing {

struct Output {
  std::string text;  // stdout and stderr together
  int code;
};

// Everything a shell command writes on stdout, and its exit code.
inline Output run_shell(const std::string& command) {
  FILE* pipe = popen(command.c_str(), "r");
  std::string text;
  std::array<char, 4096> buffer;
  while (size_t n = fread(buffer.data(), 1, buffer.size(), pipe)) text.append(buffer.data(), n);
  int status = pclose(pipe);
  return {text, WEXITSTATUS(status)};
}

// A command's JSON lines, one value per line; a line that is not JSON stays
// as a discarded value, so a test's checks on it fail.
inline std::vector<nlohmann::json> json_lines(const std::string& text) {
  std::vector<nlohmann::json> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(nlohmann::json::parse(line, nullptr, false));
  return out;
}

// `env` is prefixed to the command line, e.g. "PATH=/nowhere ".
inline Output run_cgmem(const std::string& args, const std::string& env = "") {
  return run_shell(env + std::string(CGMEM_BINARY) + " " + args + " 2>&1");
}

// stdout and stderr apart, for commands whose stdout is JSON.
struct SplitOutput {
  std::string out, err;
  int code;
};

inline SplitOutput run_cgmem_split(const std::string& args) {
  char err_path[] = "/tmp/cgmem-test-stderr-XXXXXX";
  int fd = mkstemp(err_path);
  if (fd >= 0) close(fd);
  Output o = run_shell(std::string(CGMEM_BINARY) + " " + args + " 2>" + err_path);
  std::stringstream err;
  err << std::ifstream(err_path).rdbuf();
  remove(err_path);
  return {o.text, err.str(), o.code};
}

}  // namespace cgmem::testing
