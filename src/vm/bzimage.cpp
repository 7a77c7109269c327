#include "vm/bzimage.h"

#include <cstdint>

#include "common/file.h"

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

namespace {

uint32_t u32_at(std::string_view bytes, size_t at) {
  uint32_t value = 0;
  for (int i = 3; i >= 0; --i) value = value << 8 | static_cast<unsigned char>(bytes[at + i]);
  return value;
}

}  // namespace

Result<Payload> bzimage_payload(std::string_view bytes, const std::string& path) {
  if (auto release = bzimage_release(bytes, path); !release) return std::unexpected(release.error());
  if (bytes.size() < 0x250) return fail("bzImage header is truncated", path);
  size_t setup_sects = static_cast<unsigned char>(bytes[0x1F1]);
  if (setup_sects == 0) setup_sects = 4;
  Payload payload;
  payload.offset = (setup_sects + 1) * 512 + u32_at(bytes, 0x248);
  size_t length = u32_at(bytes, 0x24C);
  if (length <= 4 || payload.offset + length > bytes.size())
    return fail("bzImage payload lies outside the file", path);
  payload.length = length - 4;
  std::string_view magic = bytes.substr(payload.offset, 6);
  struct Format { std::string_view magic; const char* tool; };
  for (const Format& format : {Format{"\x28\xb5\x2f\xfd", "zstd"}, Format{"\xfd" "7zXZ", "xz"},
                               Format{"\x1f\x8b", "gzip"}, Format{"\x02\x21\x4c\x18", "lz4"},
                               Format{"BZh", "bzip2"}, Format{std::string_view("\x5d\x00\x00", 3), "lzma"}}) {
    if (magic.starts_with(format.magic)) payload.tool = format.tool;
  }
  if (*payload.tool == '\0') return fail("bzImage payload has an unknown compression", path);
  return payload;
}

Result<std::string> read_bzimage_release(const std::string& path) {
  auto bytes = read_prefix(path, "the kernel image", 1 << 16);
  if (!bytes) return std::unexpected(bytes.error());
  return bzimage_release(*bytes, path);
}

}  // namespace cgmem::vm
