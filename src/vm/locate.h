// Finding the static cgmem the guest runs. In this order:
//   1. --cgmem PATH, when given (it must be static);
//   2. this cgmem, when it is statically linked;
//   3. cgmem-static beside this cgmem (every build but a sanitizer build
//      links both from the same objects: src/cli/CMakeLists.txt).
// Otherwise an error that names what was looked at and the command that
// builds cgmem-static.
#pragma once

#include <string>

#include "common/error.h"

namespace cgmem::vm {

Result<std::string> find_static_cgmem(const std::string& explicit_path, const std::string& self);

// A static busybox: /bin/busybox or busybox on PATH.
Result<std::string> find_static_busybox();

}  // namespace cgmem::vm
