// The x86 boot protocol header of a bzImage: enough to tell a kernel image
// from another file and to read its version string without booting it.
//
//   offset 0x202: "HdrS" (boot protocol magic)
//   offset 0x20E: u16 kernel_version, the version string's offset - 0x200,
//   e.g. "6.12.117+deb12-cloud-amd64 (debian-kernel@lists.debian.org) #1 SMP ..."
#pragma once

#include <string>
#include <string_view>

#include "common/error.h"

namespace cgmem::vm {

// The release (first word of the version string) of the bzImage held in
// `bytes`; `path` only names it in errors.
Result<std::string> bzimage_release(std::string_view bytes, const std::string& path);

// Reads the first 64 KiB of `path` and calls bzimage_release on it.
Result<std::string> read_bzimage_release(const std::string& path);

}  // namespace cgmem::vm
