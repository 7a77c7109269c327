// The run disk: an ext4 image the host builds with `mkfs.ext4 -d` from a
// staging directory and reads back with `debugfs -R "rdump ..."`, so neither
// side needs to mount anything. The guest sees it as /dev/vda, mounted on /vm.
//
//   /cgmem-vm/config      SWAP_BYTES=..., SWAP_KIND=..., ZSWAP=..., CAP_BYTES=... (sourced by /init)
//   /cgmem-vm/command.sh  the command, shell-quoted
//   /in/                  --script and --file inputs, on PATH in the guest
//   /out/                 the inner command's working directory
//   /tree/, /libs/, /cgmem-vm/trees, /cgmem-vm/links   --tree (tree_files.h)
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/error.h"
#include "vm/tree_files.h"

namespace cgmem::vm {

struct DiskSpec {
  std::string image;                // the image file to create
  std::string staging;              // an empty directory to fill first
  uint64_t size_bytes = 0;
  std::string config;               // text of /cgmem-vm/config
  std::string command;              // text of /cgmem-vm/command.sh
  std::vector<std::string> inputs;  // host files or directories copied into /in
  TreePlan trees;                   // --tree: copied to /tree and /libs
};

Result<void> make_disk(const DiskSpec& spec);

// Copies the directory `from` of the image (e.g. "/out") to `to`, which must
// not exist yet (its parent must).
Result<void> read_back(const std::string& image, const std::string& from, const std::string& to);

}  // namespace cgmem::vm
