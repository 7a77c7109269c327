#include "cli/version.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>

#include "common/file.h"

namespace cgmem {

std::string version() { return CGMEM_VERSION; }
std::string git_commit() { return CGMEM_GIT_COMMIT; }

std::string binary_hash() {
  auto fd = open_regular("/proc/self/exe", "cgmem's own binary");
  if (!fd) return "unknown";
  uint64_t hash = 0xcbf29ce484222325ULL;  // FNV-1a, 64 bits
  char buffer[1 << 16];
  for (ssize_t n; (n = ::read(fd->get(), buffer, sizeof buffer)) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return "unknown";
    for (ssize_t i = 0; i < n; ++i) hash = (hash ^ static_cast<unsigned char>(buffer[i])) * 0x100000001b3ULL;
  }
  return fmt::format("{:016x}", hash);
}

std::string self_exe(std::string_view if_unknown) {
  std::error_code ec;
  auto path = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string(if_unknown) : path.string();
}

}  // namespace cgmem
