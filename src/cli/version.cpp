#include "cli/version.h"

#include <fmt/format.h>

#include <cstdint>
#include <filesystem>
#include <fstream>

namespace cgmem {

std::string version() { return CGMEM_VERSION; }
std::string git_commit() { return CGMEM_GIT_COMMIT; }

std::string binary_hash() {
  std::ifstream in("/proc/self/exe", std::ios::binary);
  if (!in) return "unknown";
  uint64_t hash = 0xcbf29ce484222325ULL;
  char buffer[1 << 16];
  while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
    for (std::streamsize i = 0; i < in.gcount(); ++i) {
      hash = (hash ^ static_cast<unsigned char>(buffer[i])) * 0x100000001b3ULL;
    }
  }
  return fmt::format("{:016x}", hash);
}

std::string self_exe(std::string_view if_unknown) {
  std::error_code ec;
  auto path = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string(if_unknown) : path.string();
}

}  // namespace cgmem
