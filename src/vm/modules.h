// Kernel modules for the guest: find them in a package's lib/modules tree,
// order them so dependencies load first, and decompress them (busybox insmod
// takes plain .ko files; Debian ships .ko.xz).
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.h"

namespace cgmem::vm {

// Module name -> file, for every module under `modules_dir` ("virtio-blk"
// and "virtio_blk" are the same name: dashes become underscores).
Result<std::map<std::string, std::string>> index_modules(const std::string& modules_dir);

// The "depends=" list from a module's .modinfo section, e.g. for zram.ko:
// "depends=zsmalloc,lz4hc_compress,lz4_compress".
std::vector<std::string> module_depends(std::string_view ko_bytes);

// Reads a module file, decompressing .xz, .zst and .gz through xz, zstd, gzip.
Result<std::string> read_module(const std::string& path);

struct Module {
  std::string name;
  std::string bytes;  // the decompressed .ko
};

// `wanted` and everything they depend on, dependencies first. A wanted
// module that is missing is an error; so is a missing dependency.
Result<std::vector<Module>> resolve_modules(const std::map<std::string, std::string>& index,
                                            const std::vector<std::string>& wanted);

}  // namespace cgmem::vm
