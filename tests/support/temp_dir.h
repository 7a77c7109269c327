// A fresh directory under the temp dir, removed with everything in it at
// scope exit. Every test that writes files writes them in one.
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <stdexcept>
#include <string>

namespace cgmem::testing {

class TempDir {
 public:
  TempDir() : TempDir(std::filesystem::temp_directory_path().string()) {}
  // Under `base` instead (a test whose files must not be under /tmp).
  explicit TempDir(const std::string& base) {
    std::string pattern = base + "/cgmem-test-XXXXXX";
    if (!::mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed for " + pattern);
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  std::filesystem::path dir() const { return path_; }
  // Copies tests/fixtures/RELATIVE (a tree) to PATH/name; returns that path.
  std::string copy_fixture(const std::string& relative, const std::string& name) const {
    std::string to = path_ + "/" + name;
    std::filesystem::copy(std::string(CGMEM_FIXTURES) + "/" + relative, to, std::filesystem::copy_options::recursive);
    return to;
  }

 private:
  std::string path_;
};

}  // namespace cgmem::testing
