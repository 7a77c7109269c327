// The guest kernel: a Debian cloud image (6.12 by default, or 6.1: pinned
// below, fetched with apt-get download, cached, extracted with dpkg-deb), or
// the user's own bzImage (--kernel), which may come without modules.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "common/error.h"
#include "common/sink.h"

namespace cgmem::vm {

// The Debian cloud kernels `--kernel NAME` boots, each pinned in this one
// place. The archive keeps a few versions of each; when the pinned one is
// gone, the newest cloud image of the same series is used instead, and cgmem
// says so. 6.12 comes from bookworm-backports' linux-source-6.12 line
// ("6.12.N+debD"), 6.1 is Debian 12's own kernel, named by its ABI
// ("6.1.0-ABI", the upstream version is in the package's version).
struct DebianKernel {
  const char* name;    // "debian-6.12": what --kernel and `cgmem kernel list` take and show
  const char* series;  // "6.12"
  const char* pinned;  // the release fetched first
};
inline constexpr DebianKernel kDebianKernels[] = {
    {"debian-6.12", "6.12", "6.12.117+deb12-cloud-amd64"},
    {"debian-6.1", "6.1", "6.1.0-57-cloud-amd64"},
};
// The default kernel, and its pinned release.
inline constexpr const DebianKernel& kDefaultDebianKernel = kDebianKernels[0];
inline constexpr const char* kPinnedKernel = kDefaultDebianKernel.pinned;

// The Debian kernel called `name` ("debian-6.1"), or null.
constexpr const DebianKernel* find_debian_kernel(std::string_view name) {
  for (const auto& kernel : kDebianKernels)
    if (name == kernel.name) return &kernel;
  return nullptr;
}

// "linux-image-" + release.
std::string kernel_package(const std::string& release);

struct GuestKernel {
  std::string image;        // the bzImage
  std::string pvh;          // its vmlinux with a PVH entry note, which QEMU boots faster; or empty
  std::string release;      // "6.12.117+deb12-cloud-amd64", from the bzImage header
  std::string modules_dir;  // .../lib/modules/RELEASE, empty if none
  std::string config;       // the kernel's .config, empty if unknown
  std::string note;         // what the user should know (a fallback), or empty
  std::string name;         // a built kernel's cache name ("hz1000-throttle"), a Debian one ("debian-6.12"), or empty for a path
  int hz = 0;               // CONFIG_HZ from the config, 0 when unknown
};

// CONFIG_HZ in the .config at `config_path`, 0 when it cannot be read.
int read_config_hz(const std::string& config_path);

// The value of CONFIG_NAME in a kernel's .config text ("y", "m", "1000",
// "\"lz4\""), or "" when it is unset or absent.
std::string config_option(std::string_view config_text, std::string_view name);

// $XDG_CACHE_HOME/cgmem, else $HOME/.cache/cgmem.
Result<std::string> cache_dir();

// Progress lines ("fetching kernel ...") go to a sink the command gives.
using Progress = LineSink;

// A Debian kernel from the cache, fetching it on first use (or the newest
// cloud image of its series when the pinned one is gone from the archive).
Result<GuestKernel> debian_kernel(const std::string& cache, const DebianKernel& which, const Progress& progress);

// The release of `which` already in the cache (the pinned one, else the
// newest fallback fetched before), or empty when it has not been fetched.
std::string cached_debian_release(const std::string& cache, const DebianKernel& which);

// The user's own bzImage; modules and config are picked up when it sits in a
// kernel build tree (arch/x86/boot/bzImage next to .config) or in an entry
// of cgmem's kernel cache (bzImage next to config and vmlinux.pvh, see
// src/kernel/cache.h).
Result<GuestKernel> own_kernel(const std::string& path);

// The newest "linux-image-SERIES.*-cloud-amd64" release of `series` in
// `search_output` (apt-cache search --names-only lines): "6.12.N+debD" by N,
// "6.1.0-ABI" by ABI; nothing if there is none.
std::optional<std::string> newest_cloud_release(const std::string& search_output, std::string_view series);

}  // namespace cgmem::vm
