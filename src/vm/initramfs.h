// The guest's initramfs: busybox, the static cgmem, the kernel modules the
// guest needs (decompressed, with a load order), the kernel config (so
// `cgmem host` can read HZ) and /init (guest_init.sh, embedded in cgmem).
// Built in memory as a reproducible newc cpio, then compressed with gzip -n.
//
//   /init  /bin/busybox  /bin/sh -> busybox  /bin/cgmem
//   /lib/modules/NAME.ko ...  /lib/modules/order (one name a line)
//   /boot/config (renamed to /boot/config-RELEASE by /init)
//   --program files: /usr/local/bin/NAME, their loader and libraries (program_files.h)
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/error.h"
#include "vm/modules.h"
#include "vm/program_files.h"

namespace cgmem::vm {

// The text of guest_init.sh, compiled into cgmem.
std::string_view guest_init_script();

struct GuestFiles {
  std::string busybox;  // bytes of a static busybox
  std::string cgmem;    // bytes of a static cgmem
  std::vector<Module> modules;
  std::string config;   // the kernel's .config, or empty
  struct Extra {
    std::string path;   // relative to the guest's root; missing parent dirs are made
    std::string bytes;
    uint32_t mode = 0644;
  };
  std::vector<Extra> extra;
};

// The uncompressed cpio archive; the same inputs give the same bytes.
std::string initramfs_archive(const GuestFiles& files);

// Reads busybox and cgmem from disk into a GuestFiles (both must be static).
Result<GuestFiles> read_guest_files(const std::string& busybox, const std::string& cgmem,
                                    const std::string& config);

// Reads each file's bytes into files.extra.
Result<void> add_extra_files(const std::vector<GuestFile>& wanted, GuestFiles& files);

// Writes the archive gzip-compressed (gzip -n: no name, no time) to `path`.
Result<void> write_initramfs(const std::string& archive, const std::string& path);

}  // namespace cgmem::vm
