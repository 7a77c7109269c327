// A host directory for the guest, at the same path (`cgmem vm --tree DIR`):
// a runtime that finds its files relative to its own binary (a JDK's
// lib/modules, PostgreSQL's share dir) runs there as on the host.
//
// On the run disk, not in the initramfs, so its pages are page cache the
// guest can reclaim (a JDK is 200 MiB; the initramfs stays in RAM):
//   /tree/DIR/...     the tree, symlinks followed (a JDK links into /etc);
//                     the guest bind-mounts it on DIR
//   /libs/SONAME      each library an ELF file of a tree needs that no tree
//                     has, found as the loader would (program_files.h); the
//                     guest links /lib/x86_64-linux-gnu/SONAME to it
//   /cgmem-vm/trees   the trees, one a line
//   /cgmem-vm/links   "GUEST_PATH DISK_PATH", one a line
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "common/error.h"
#include "vm/program_files.h"

namespace cgmem::vm {

inline constexpr char kDiskTreeDir[] = "tree";
inline constexpr char kDiskLibDir[] = "libs";

struct TreePlan {
  std::vector<std::string> trees;    // absolute, normalised host dirs
  std::vector<GuestFile> libraries;  // guest_path: where the guest links it from
  std::vector<std::string> missing;  // "SONAME (needed by FILE)": a plugin the host cannot load either
  uint64_t files = 0, bytes = 0;
  uint64_t left_out = 0;             // symlinks to nothing or back up the tree, left out
};

// Checks each tree (an absolute directory, not one the guest's own files
// live in, no white space in its path) and reads every ELF file in it.
Result<TreePlan> plan_trees(const std::vector<std::string>& trees, const std::vector<std::string>& loader_dirs);

// Calls `each(host_file, relative_path)` for every regular file under
// `root`, following symlinks to files and to directories; a symlink to
// nothing, or to a directory it is already inside, is counted in
// `left_out` and skipped.
Result<void> walk_tree(const std::string& root, const std::function<Result<void>(const std::string&, const std::string&)>& each,
                       uint64_t& left_out);

// The manifests the guest reads: /cgmem-vm/trees and /cgmem-vm/links.
std::string trees_manifest(const TreePlan& plan);
std::string links_manifest(const TreePlan& plan);

}  // namespace cgmem::vm
