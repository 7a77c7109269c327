// The cache of built kernels: $XDG_CACHE_HOME/cgmem/kernels/NAME-KEY/ (else
// ~/.cache/cgmem/...), beside the Debian kernel packages `cgmem vm` fetches.
// An entry is whole or absent: it is built in a temporary directory and
// renamed into place. It holds:
//   bzImage       the kernel
//   vmlinux.pvh   the uncompressed kernel with its PVH entry note (QEMU boots it faster)
//   config        the .config
//   build.log     every step's output
//   build.json    what it was built from (kEntryFile)
// A failed build leaves only NAME-KEY.failed.log.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/error.h"

namespace cgmem::kernel {

inline constexpr char kEntryFile[] = "build.json";

struct Entry {
  std::string dir;             // .../kernels/NAME-KEY
  std::string name, key;       // "hz1000-throttle", "3f2a9c0d11be"
  int hz = 0;
  std::string patch;           // empty: none
  std::string source_version;  // "6.12.117-1~deb12u1"
  std::string release;         // "6.12.117-cgmem-hz1000-throttle"
  std::string built_at;        // ISO 8601 UTC
  double seconds = 0;          // the whole build
  unsigned jobs = 0;
  uint64_t objects = 0;        // files the compiler step compiled, for the next build's progress
  uint64_t image_bytes = 0;

  std::string image() const { return dir + "/bzImage"; }
};

// $XDG_CACHE_HOME/cgmem/kernels (from vm::cache_dir).
Result<std::string> kernels_dir();

// Every built kernel in `kernels`, by name then newest first. Directories
// without a readable build.json (Debian packages, half-written ones) are not
// entries.
std::vector<Entry> list_entries(const std::string& kernels);

// The entry NAME-KEY, if it is there and whole.
std::optional<Entry> find_entry(const std::string& kernels, const std::string& name, const std::string& key);

// The kernel a user means by NAME: the entry with this cgmem's key for it
// when built, else the newest entry of that name (older inputs), else an
// error that gives the command that builds it.
Result<Entry> resolve_entry(const std::string& kernels, const std::string& name,
                            const std::optional<std::string>& current_key);

// build.json <-> Entry.
std::string entry_json(const Entry& entry);
std::optional<Entry> read_entry(const std::string& dir);

}  // namespace cgmem::kernel
