// The guest kernel: Debian's 6.12 cloud image by default (pinned below,
// fetched with apt-get download, cached, extracted with dpkg-deb), or the
// user's own bzImage (--kernel), which may come without modules.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "common/error.h"

namespace cgmem::vm {

// The one place the default kernel's version is pinned. The archive keeps a
// few versions; when this one is gone, the newest 6.12 cloud image is used
// instead, and cgmem says so.
inline constexpr const char* kPinnedKernel = "6.12.117+deb12-cloud-amd64";

// "linux-image-" + release.
std::string kernel_package(const std::string& release);

struct Kernel {
  std::string image;        // the bzImage QEMU boots
  std::string release;      // "6.12.117+deb12-cloud-amd64", from the bzImage header
  std::string modules_dir;  // .../lib/modules/RELEASE, empty if none
  std::string config;       // the kernel's .config, empty if unknown
  std::string note;         // what the user should know (a fallback), or empty
};

// $XDG_CACHE_HOME/cgmem, else $HOME/.cache/cgmem.
Result<std::string> cache_dir();

// Progress lines ("fetching kernel ...") go through this.
using Progress = std::function<void(const std::string&)>;

// The pinned Debian kernel from the cache, fetching it on first use (or the
// newest 6.12 cloud image when the pinned one is gone from the archive).
Result<Kernel> debian_kernel(const std::string& cache, const Progress& progress);

// The user's own bzImage; modules and config are picked up when it sits in a
// kernel build tree (arch/x86/boot/bzImage next to .config).
Result<Kernel> own_kernel(const std::string& path);

// The newest "linux-image-6.12.N+debD-cloud-amd64" release in `search_output`
// (apt-cache search --names-only lines), by N; nothing if there is none.
std::optional<std::string> newest_cloud_release(const std::string& search_output);

}  // namespace cgmem::vm
