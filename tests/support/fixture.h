// Test helpers: fixture files and trees under tests/fixtures.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "support/temp_dir.h"

namespace cgmem::testing {

inline std::string fixture_path(const std::string& relative) {
  std::string path = CGMEM_FIXTURES;  // appended: g++ 12 -O2 warns falsely on string + "/" + string
  path.push_back('/');
  return path.append(relative);
}

// The text of tests/fixtures/RELATIVE ("" when missing: the test then fails on content).
inline std::string fixture(const std::string& relative) {
  std::ifstream in(fixture_path(relative), std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

inline std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

inline void spit(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
}

}  // namespace cgmem::testing
