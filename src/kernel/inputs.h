// What a kernel of cgmem's own is built from, and its name and cache key.
//
// A build is Debian's linux-source-6.12 tarball, configured from
// kernel/config/lab.config (compiled into cgmem, so an installed cgmem needs
// no source tree) on top of `make tinyconfig`, with the HZ chosen and, for
// --patch, a patch from kernel/patches/ applied. The name says what a user
// asked for ("hz1000", "hz1000-throttle"); the key is the first 12 hex digits
// of a SHA-256 over the source version, the whole fragment (HZ and
// CONFIG_LOCALVERSION included) and the patch, so a change to any of them is
// a new cache entry. The kernel's release carries the name
// ("6.12.117-cgmem-hz1000-throttle"), so run records made in the guest name it.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.h"

namespace cgmem::kernel {

inline constexpr int kHzChoices[] = {100, 250, 300, 1000};

// The one patch cgmem knows: the RFC "memory.high.throttle", ported to 6.12.
inline constexpr std::string_view kThrottlePatch = "memory-high-throttle";

// The source tarball of Debian's linux-source-6.12 package.
inline constexpr const char* kSourcePackage = "linux-source-6.12";
inline constexpr const char* kSourceTarball = "/usr/src/linux-source-6.12.tar.xz";

struct Source {
  std::string tarball;  // an .tar.xz holding one top directory
  std::string version;  // the package version, or "file SIZE MTIME" for --source
};

struct BuildInputs {
  int hz = 1000;
  std::optional<std::string> patch;  // a name from patch_names(), or none
};

// "hz1000", "hz1000-throttle".
std::string kernel_name(const BuildInputs& inputs);

// The inputs a name stands for ("hz250-throttle" -> 250 + the patch), or
// nothing when the name is not one kernel_name makes.
std::optional<BuildInputs> inputs_from_name(std::string_view name);

// The command that builds the kernel `name` ("cgmem kernel build --hz 1000
// --patch memory-high-throttle"), or empty when the name is not cgmem's.
std::string build_command(std::string_view name);

// The fragment merged over tinyconfig: lab.config, then the HZ choice and
// CONFIG_LOCALVERSION="-cgmem-NAME".
std::string fragment(const BuildInputs& inputs);

// The patch text for a patch name; an error names the known patches.
Result<std::string> patch_text(std::string_view patch);
std::vector<std::string> patch_names();

// The embedded kernel/config/lab.config and patch files.
std::string_view lab_config();
std::string_view throttle_patch();

// The installed linux-source-6.12 (dpkg-query), or the tarball given with
// --source (versioned by its size and mtime).
Result<Source> debian_source();
Result<Source> tarball_source(const std::string& path);

// The cache key: 12 hex digits of SHA-256(version, fragment, patch).
std::string cache_key(const Source& source, const BuildInputs& inputs);

}  // namespace cgmem::kernel
