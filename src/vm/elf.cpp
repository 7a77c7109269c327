#include "vm/elf.h"

#include <elf.h>

#include <cstring>
#include <fstream>

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

Result<bool> is_static_executable(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return sys_error("open", path);
  std::string bytes(1 << 16, '\0');
  in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  bytes.resize(static_cast<size_t>(in.gcount()));
  return is_static_elf(bytes, path);
}

}  // namespace cgmem::vm
