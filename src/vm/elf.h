// Is this a statically linked x86-64 executable? The guest has no dynamic
// loader or libraries, so only those run there. A dynamically linked ELF has
// a PT_INTERP program header naming its loader; a static one has none.
#pragma once

#include <string>
#include <string_view>

#include "common/error.h"

namespace cgmem::vm {

// From the file's first bytes (the ELF header and program headers).
Result<bool> is_static_elf(std::string_view bytes, const std::string& path);

// Reads the start of `path` and calls is_static_elf.
Result<bool> is_static_executable(const std::string& path);

}  // namespace cgmem::vm
