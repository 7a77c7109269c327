#include "vm/bzimage.h"

#include <fstream>

namespace cgmem::vm {

Result<std::string> bzimage_release(std::string_view bytes, const std::string& path) {
  const std::string hint = "--kernel takes a bzImage, e.g. arch/x86/boot/bzImage";
  if (bytes.size() < 0x210 || bytes.substr(0x202, 4) != "HdrS")
    return fail("not an x86 bzImage (no HdrS boot header)", path, hint);
  auto lo = static_cast<unsigned char>(bytes[0x20E]);
  auto hi = static_cast<unsigned char>(bytes[0x20F]);
  size_t offset = 0x200 + (static_cast<size_t>(hi) << 8 | lo);
  if (offset >= bytes.size()) return fail("bzImage version string lies outside the file", path, hint);
  std::string_view rest = bytes.substr(offset);
  size_t end = rest.find_first_of(std::string_view(" \0", 2));
  std::string release(rest.substr(0, end));
  if (release.empty()) return fail("bzImage has an empty version string", path, hint);
  return release;
}

Result<std::string> read_bzimage_release(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return sys_error("open the kernel image", path);
  std::string bytes(1 << 16, '\0');
  in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  bytes.resize(static_cast<size_t>(in.gcount()));
  return bzimage_release(bytes, path);
}

}  // namespace cgmem::vm
