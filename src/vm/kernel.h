// The guest kernel: Debian's 6.12 cloud image by default (pinned below,
// fetched with apt-get download, cached, extracted with dpkg-deb), or the
// user's own bzImage (--kernel), which may come without modules.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "common/error.h"
#include "common/sink.h"

namespace cgmem::vm {

// The one place the default kernel's version is pinned. The archive keeps a
// few versions; when this one is gone, the newest 6.12 cloud image is used
// instead, and cgmem says so.
inline constexpr const char* kPinnedKernel = "6.12.117+deb12-cloud-amd64";

// "linux-image-" + release.
std::string kernel_package(const std::string& release);

struct Kernel {
  std::string image;        // the bzImage
  std::string pvh;          // its vmlinux with a PVH entry note, which QEMU boots faster; or empty
  std::string release;      // "6.12.117+deb12-cloud-amd64", from the bzImage header
  std::string modules_dir;  // .../lib/modules/RELEASE, empty if none
  std::string config;       // the kernel's .config, empty if unknown
  std::string note;         // what the user should know (a fallback), or empty
  std::string name;         // a built kernel's cache name ("hz1000-throttle"), "debian", or empty for a path
  int hz = 0;               // CONFIG_HZ from the config, 0 when unknown
};

// CONFIG_HZ in the .config at `config_path`, 0 when it cannot be read.
int read_config_hz(const std::string& config_path);

// $XDG_CACHE_HOME/cgmem, else $HOME/.cache/cgmem.
Result<std::string> cache_dir();

// Progress lines ("fetching kernel ...") go to a sink the command gives.
using Progress = LineSink;

// The pinned Debian kernel from the cache, fetching it on first use (or the
// newest 6.12 cloud image when the pinned one is gone from the archive).
Result<Kernel> debian_kernel(const std::string& cache, const Progress& progress);

// The user's own bzImage; modules and config are picked up when it sits in a
// kernel build tree (arch/x86/boot/bzImage next to .config) or in an entry
// of cgmem's kernel cache (bzImage next to config and vmlinux.pvh, see
// src/kernel/cache.h).
Result<Kernel> own_kernel(const std::string& path);

// The newest "linux-image-6.12.N+debD-cloud-amd64" release in `search_output`
// (apt-cache search --names-only lines), by N; nothing if there is none.
std::optional<std::string> newest_cloud_release(const std::string& search_output);

}  // namespace cgmem::vm
