// Reading what a VM scenario brought back (`cgmem vm --out DIR`): a file's
// text, and its JSON lines (a line that is not JSON, such as a truncated
// last one, is skipped). For the *_vm_test.cpp checks.
#pragma once

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

namespace cgmem::testing {

inline std::string slurp_out(const std::string& dir, const std::string& path) {
  std::ifstream in(dir + "/" + path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

inline std::vector<nlohmann::json> json_lines_of(const std::string& text) {
  std::vector<nlohmann::json> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    auto j = nlohmann::json::parse(line, nullptr, false);
    if (!j.is_discarded()) out.push_back(j);
  }
  return out;
}

}  // namespace cgmem::testing
