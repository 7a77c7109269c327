#include "vm/elf.h"

#include <elf.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "common/file.h"

namespace cgmem::vm {

Result<bool> is_static_elf(std::string_view bytes, const std::string& path) {
  Elf64_Ehdr header;
  if (bytes.size() < sizeof header || bytes.substr(0, 4) != "\x7f" "ELF")
    return fail("not an ELF executable", path);
  std::memcpy(&header, bytes.data(), sizeof header);
  if (header.e_ident[EI_CLASS] != ELFCLASS64 || header.e_machine != EM_X86_64)
    return fail("not an x86-64 ELF executable", path);
  for (size_t i = 0; i < header.e_phnum; ++i) {
    size_t at = header.e_phoff + i * header.e_phentsize;
    Elf64_Phdr program;
    if (header.e_phentsize < sizeof program || at + sizeof program > bytes.size())
      return fail("ELF program headers lie outside the file's first 64 KiB", path);
    std::memcpy(&program, bytes.data() + at, sizeof program);
    if (program.p_type == PT_INTERP) return false;
  }
  return true;
}

Result<bool> has_pvh_note(const std::string& path) {
  auto fd = open_regular(path, "the kernel");
  if (!fd) return std::unexpected(fd.error());
  // The bytes at `offset`, all of them, or false.
  auto read_at = [&](void* into, size_t size, uint64_t offset) {
    return ::pread(fd->get(), into, size, static_cast<off_t>(offset)) == static_cast<ssize_t>(size);
  };
  Elf64_Ehdr header;
  if (!read_at(&header, sizeof header, 0) || std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0)
    return fail("not an ELF file", path);
  for (size_t i = 0; i < header.e_phnum; ++i) {
    Elf64_Phdr program;
    if (!read_at(&program, sizeof program, header.e_phoff + i * header.e_phentsize))
      return fail("truncated ELF program headers", path);
    if (program.p_type != PT_NOTE || program.p_filesz > (1u << 20)) continue;
    std::string notes(program.p_filesz, '\0');
    if (!read_at(notes.data(), notes.size(), program.p_offset)) return fail("truncated ELF note", path);
    // Each note: namesz, descsz, type (u32 each), name and desc padded to 4.
    for (size_t at = 0; at + 12 <= notes.size();) {
      Elf64_Nhdr note;
      std::memcpy(&note, notes.data() + at, sizeof note);
      std::string_view name(notes.data() + at + 12, std::min<size_t>(note.n_namesz, notes.size() - at - 12));
      if (note.n_type == 18 && name.starts_with("Xen")) return true;
      at += 12 + (note.n_namesz + 3) / 4 * 4 + (note.n_descsz + 3) / 4 * 4;
    }
  }
  return false;
}

Result<bool> is_static_executable(const std::string& path) {
  auto bytes = read_prefix(path, "the executable", 1 << 16);
  if (!bytes) return std::unexpected(bytes.error());
  return is_static_elf(*bytes, path);
}

}  // namespace cgmem::vm
