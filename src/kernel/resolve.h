// What `--kernel ARG` means for `cgmem vm` and `cgmem matrix`: a bzImage
// path when ARG names a file, a Debian cloud kernel by name ("debian-6.1",
// "debian-6.12": image empty, fetched at boot), else a kernel in cgmem's
// cache by name ("hz1000", "hz1000-throttle").
#pragma once

#include <string>

#include "common/error.h"

namespace cgmem::kernel {

struct KernelChoice {
  std::string image;  // the bzImage to boot; empty for a Debian kernel
  std::string name;   // the cache name, empty for a path
  std::string note;   // e.g. the entry was built from older inputs than this cgmem's
};

Result<KernelChoice> resolve_kernel(const std::string& arg);

}  // namespace cgmem::kernel
