// Test helpers: fixture files and trees under tests/fixtures.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace cgmem::testing {

inline std::string fixture_path(const std::string& relative) {
  return std::string(CGMEM_FIXTURES) + "/" + relative;
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

// A fresh temp directory, removed with everything in it at scope exit.
class TempDir {
 public:
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "cgmem-test-XXXXXX").string();
    path_ = ::mkdtemp(pattern.data());
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  const std::string& path() const { return path_; }
  // Copies tests/fixtures/RELATIVE (a tree) to PATH/name; returns that path.
  std::string copy_fixture(const std::string& relative, const std::string& name) const {
    std::string to = path_ + "/" + name;
    std::filesystem::copy(fixture_path(relative), to, std::filesystem::copy_options::recursive);
    return to;
  }

 private:
  std::string path_;
};

}  // namespace cgmem::testing
