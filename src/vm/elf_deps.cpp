#include "vm/elf_deps.h"

#include <elf.h>

#include <cstring>
#include <fmt/format.h>
#include <fstream>
#include <optional>
#include <sstream>

namespace cgmem::vm {

namespace {

template <typename T>
std::optional<T> read_at(std::string_view bytes, uint64_t at) {
  T value;
  if (at > bytes.size() || bytes.size() - at < sizeof value) return std::nullopt;
  std::memcpy(&value, bytes.data() + at, sizeof value);
  return value;
}

// DT_STRTAB holds a virtual address: the PT_LOAD segment that maps it gives
// its place in the file.
std::optional<uint64_t> file_offset(const std::vector<Elf64_Phdr>& loads, uint64_t vaddr) {
  for (const auto& p : loads)
    if (vaddr >= p.p_vaddr && vaddr - p.p_vaddr < p.p_filesz) return p.p_offset + (vaddr - p.p_vaddr);
  return std::nullopt;
}

std::vector<std::string> split_dirs(std::string_view text) {
  std::vector<std::string> dirs;
  for (size_t start = 0; start <= text.size();) {
    size_t end = text.find(':', start);
    if (end == std::string_view::npos) end = text.size();
    if (end > start) dirs.emplace_back(text.substr(start, end - start));
    start = end + 1;
  }
  return dirs;
}

}  // namespace

Result<ElfDeps> parse_elf_deps(std::string_view bytes, const std::string& path) {
  auto header = read_at<Elf64_Ehdr>(bytes, 0);
  if (!header || std::memcmp(header->e_ident, ELFMAG, SELFMAG) != 0) return fail("not an ELF file", path);
  ElfDeps deps;
  deps.x86_64 = header->e_ident[EI_CLASS] == ELFCLASS64 && header->e_machine == EM_X86_64;
  if (!deps.x86_64) return deps;  // the caller decides; its headers are not Elf64 ones
  std::vector<Elf64_Phdr> loads;
  std::optional<Elf64_Phdr> dynamic;
  for (uint64_t i = 0; i < header->e_phnum; ++i) {
    auto p = read_at<Elf64_Phdr>(bytes, header->e_phoff + i * header->e_phentsize);
    if (!p || header->e_phentsize < sizeof(Elf64_Phdr))
      return fail(fmt::format("ELF program header {} lies outside the file", i), path);
    if (p->p_type == PT_LOAD) loads.push_back(*p);
    if (p->p_type == PT_DYNAMIC) dynamic = *p;
    if (p->p_type == PT_INTERP) {
      if (p->p_offset > bytes.size() || bytes.size() - p->p_offset < p->p_filesz)
        return fail("ELF PT_INTERP lies outside the file", path);
      std::string_view interp = bytes.substr(p->p_offset, p->p_filesz);
      deps.interp = std::string(interp.substr(0, interp.find('\0')));
    }
  }
  if (!dynamic) return deps;
  std::vector<uint64_t> needed, runpath, rpath;
  std::optional<uint64_t> strtab, strsz;
  for (uint64_t at = dynamic->p_offset; at < dynamic->p_offset + dynamic->p_filesz; at += sizeof(Elf64_Dyn)) {
    auto d = read_at<Elf64_Dyn>(bytes, at);
    if (!d) return fail("ELF PT_DYNAMIC lies outside the file", path);
    if (d->d_tag == DT_NULL) break;
    if (d->d_tag == DT_NEEDED) needed.push_back(d->d_un.d_val);
    if (d->d_tag == DT_RUNPATH) runpath.push_back(d->d_un.d_val);
    if (d->d_tag == DT_RPATH) rpath.push_back(d->d_un.d_val);
    if (d->d_tag == DT_STRTAB) strtab = file_offset(loads, d->d_un.d_ptr);
    if (d->d_tag == DT_STRSZ) strsz = d->d_un.d_val;
  }
  if (needed.empty() && runpath.empty() && rpath.empty()) return deps;
  if (!strtab || !strsz || *strtab > bytes.size() || bytes.size() - *strtab < *strsz)
    return fail("ELF DT_STRTAB is missing or lies outside the file", path);
  std::string_view strings = bytes.substr(*strtab, *strsz);
  auto string_at = [&](uint64_t index) -> Result<std::string> {
    if (index >= strings.size()) return fail(fmt::format("ELF dynamic string {} lies outside DT_STRTAB", index), path);
    std::string_view rest = strings.substr(index);
    return std::string(rest.substr(0, rest.find('\0')));
  };
  for (uint64_t index : needed) {
    auto name = string_at(index);
    if (!name) return std::unexpected(name.error());
    deps.needed.push_back(*name);
  }
  // ld.so ignores DT_RPATH when DT_RUNPATH is present.
  for (uint64_t index : runpath.empty() ? rpath : runpath) {
    auto dirs = string_at(index);
    if (!dirs) return std::unexpected(dirs.error());
    for (auto& dir : split_dirs(*dirs)) deps.runpath.push_back(std::move(dir));
  }
  return deps;
}

Result<ElfDeps> read_elf_deps(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return sys_error("open", path);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return parse_elf_deps(bytes.str(), path);
}

}  // namespace cgmem::vm
