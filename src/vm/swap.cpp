#include "vm/swap.h"

#include <fmt/format.h>

#include "common/file.h"
#include "vm/modules.h"

namespace cgmem::vm {

namespace {

std::string kernel_what(const GuestKernel& kernel) { return kernel.name.empty() ? kernel.image : kernel.name; }

// zram built in, or a module the guest can load.
bool has_zram(const GuestKernel& kernel, std::string_view config) {
  std::string zram = config_option(config, "CONFIG_ZRAM");
  if (zram == "y") return true;
  if (zram != "m" || kernel.modules_dir.empty()) return false;
  auto index = index_modules(kernel.modules_dir);
  return index && index->contains("zram");
}

}  // namespace

Result<std::string> choose_swap_kind(const SwapRequest& request, const GuestKernel& kernel) {
  if (request.bytes == 0) {
    if (!request.kind.empty() || request.zswap)
      return fail(request.zswap ? "--zswap needs a swap to sit in front of" : "--swap-kind needs a swap", {},
                  "give its size: --swap 256M");
    return std::string("none");
  }
  if (request.bytes < (1u << 20)) return fail(fmt::format("--swap {} is under 1 MiB", request.bytes));
  std::string config = kernel.config.empty() ? "" : read_file_or_empty(kernel.config);
  if (request.zswap) {
    if (request.kind == "zram")
      return fail("--zswap sits in front of a disk swap, not zram", {}, "drop --swap-kind zram (zswap implies disk)");
    if (!config.empty() && config_option(config, "CONFIG_ZSWAP") != "y")
      return fail("the kernel " + kernel_what(kernel) + " is built without zswap (CONFIG_ZSWAP)", kernel.config,
                  "boot cgmem's own kernel, which has it: cgmem kernel build (docs/kernel.md), then --kernel NAME");
    return std::string("disk");
  }
  if (request.kind == "disk") return std::string("disk");
  if (config.empty()) return std::string(request.kind.empty() ? "auto" : request.kind);  // the guest finds out
  bool zram = has_zram(kernel, config);
  if (request.kind == "zram" && !zram)
    return fail("the kernel " + kernel_what(kernel) + " has no zram (CONFIG_ZRAM)", kernel.config,
                "use --swap-kind disk, or a kernel with zram");
  return std::string(zram ? "zram" : "disk");
}

std::string swap_config_lines(const SwapRequest& request, const std::string& kind) {
  return fmt::format("SWAP_BYTES={}\nSWAP_KIND={}\nZSWAP={}\n", kind == "none" ? 0 : request.bytes, kind,
                     request.zswap ? 1 : 0);
}

}  // namespace cgmem::vm
