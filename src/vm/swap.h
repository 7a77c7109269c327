// The guest's swap (`cgmem vm --swap SIZE --swap-kind disk|zram --zswap`):
// which kind, checked against the kernel before anything boots.
//
//   zram   a compressed RAM disk (zram0) of SIZE: what Fedora and many
//          desktops run. Debian's cloud kernels have it as a module
//          (zram.ko, brought into the initramfs), cgmem's kernel built in.
//   disk   a swap file of SIZE on the ext4 run disk (virtio-blk), so its
//          I/O is the run's and io.max on the disk's MAJ:MIN caps it.
//   zswap  a disk swap with zswap in front: pages are compressed into a
//          pool in RAM and written to the disk only when the pool is full
//          or its shrinker writes them back. Debian's 6.1 and 6.12 cloud
//          kernels are built without CONFIG_ZSWAP; cgmem's kernel has it
//          (kernel/config/lab.config), off until the guest turns it on.
//
// With no --swap-kind, zram where the kernel has it, else disk (as before
// the kind could be chosen).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "common/error.h"
#include "vm/kernel.h"

namespace cgmem::vm {

struct SwapRequest {
  uint64_t bytes = 0;     // 0: no swap
  std::string kind;       // "", "disk" or "zram"
  bool zswap = false;     // zswap in front of a disk swap
};

// The kind the guest sets up ("none", "disk" or "zram"; "auto" for a
// kernel whose .config is unknown: the guest takes zram if it finds it,
// else disk, and says which in its facts), or why it cannot:
// zram on a kernel without CONFIG_ZRAM, zswap on one without CONFIG_ZSWAP
// or with zram, --swap-kind or --zswap without --swap.
Result<std::string> choose_swap_kind(const SwapRequest& request, const GuestKernel& kernel);

// The lines of /cgmem-vm/config that tell guest_init.sh what to set up.
std::string swap_config_lines(const SwapRequest& request, const std::string& kind);

}  // namespace cgmem::vm
