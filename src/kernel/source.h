// Where a kernel build's source comes from, and what it already holds.
//
//   Debian's   /usr/src/linux-source-6.12.tar.xz of the linux-source-6.12
//              package; identity: the package version (dpkg-query)
//   --source   a tarball: identity "file SIZE MTIME", version from its top
//              Makefile (read with tar, stopping at the first match)
//   --source   a directory with a Makefile at its top: copied into the
//              private build directory, never modified; identity
//              "dir VERSION DIGEST", DIGEST being SHA-256 over the sorted
//              list of its files (path, size, mtime in ns; .git left out),
//              so any edit, added or removed file is a new key
//
// A patch the tree already has upstream is skipped: the stock slots when
// mm/memcontrol.c has NR_MEMCG_STOCK (6.16 merged the multi-memcg stock),
// the throttle when it has high.throttle.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/error.h"
#include "kernel/inputs.h"

namespace cgmem::kernel {

// The installed linux-source-6.12 (dpkg-query).
Result<Source> debian_source();

// --source PATH: a directory holding a tree, else a tarball.
Result<Source> option_source(const std::string& path);
Result<Source> tarball_source(const std::string& path);
Result<Source> directory_source(const std::string& path);

// "6.16.3" from a kernel Makefile's VERSION, PATCHLEVEL and SUBLEVEL lines
// ("VERSION = 6"); empty when one is missing or not a number.
std::string makefile_version(std::string_view makefile);

// The digest of a directory's file list (see above): 64 hex digits.
Result<std::string> tree_digest(const std::string& dir);

// True when `version` ("6.16.3") is at least major.minor.
bool version_at_least(std::string_view version, int major, int minor);

// A patch the tree's mm/memcontrol.c text already holds, and the mark found.
struct Upstream {
  std::string patch;   // "memcg-stock-slots"
  std::string reason;  // "mm/memcontrol.c has NR_MEMCG_STOCK"
};
std::vector<Upstream> upstream_patches(std::string_view memcontrol_c, const std::vector<std::string>& patches);

}  // namespace cgmem::kernel
