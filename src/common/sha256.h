// SHA-256 (FIPS 180-4), for the claim file's hash that every run of a
// matrix records. Small and dependency-free so the static VM binary has it.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "common/error.h"

namespace cgmem {

class Sha256 {
 public:
  Sha256();
  void update(std::string_view bytes);
  std::array<uint8_t, 32> finish();

 private:
  void block(const uint8_t* p);
  std::array<uint32_t, 8> h_;
  std::array<uint8_t, 64> buffer_{};
  size_t used_ = 0;
  uint64_t length_ = 0;
};

// Lowercase hex digest of bytes.
std::string sha256_hex(std::string_view bytes);

// Lowercase hex digest of a file's contents.
Result<std::string> sha256_file(const std::string& path);

}  // namespace cgmem
