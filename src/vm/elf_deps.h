// What a dynamically linked ELF needs at run time, read from the file the
// way ld.so reads it, without running it (ldd runs the loader, which runs
// code from the file): the loader named in PT_INTERP, the DT_NEEDED entries
// and the DT_RUNPATH/DT_RPATH search dirs of its PT_DYNAMIC segment.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/error.h"

namespace cgmem::vm {

struct ElfDeps {
  bool x86_64 = false;                // ELFCLASS64 and EM_X86_64 (what the guest runs)
  std::string interp;                 // PT_INTERP, empty for a static ELF
  std::vector<std::string> needed;    // DT_NEEDED, in order
  std::vector<std::string> runpath;   // DT_RUNPATH (or DT_RPATH when there is no RUNPATH), split at ':'
};

// From the whole file's bytes. An ELF whose headers point outside the file
// is an error that names the header; a file that is not ELF too.
Result<ElfDeps> parse_elf_deps(std::string_view bytes, const std::string& path);

// Reads `path` and parses it.
Result<ElfDeps> read_elf_deps(const std::string& path);

}  // namespace cgmem::vm
