// The cache of built kernels: $XDG_CACHE_HOME/cgmem/kernels/NAME-KEY/ (else
// ~/.cache/cgmem/...), beside the Debian kernel packages `cgmem vm` fetches.
// An entry is whole or absent: it is built in a temporary directory and
// renamed into place. It holds:
//   bzImage       the kernel
//   vmlinux.pvh   the uncompressed kernel with its PVH entry note (QEMU boots it faster)
//   config        the .config
//   build.log     every step's output
//   build.json    what it was built from (kEntryFile): name, key, hz, patch,
//                 patches, upstream, version, source, source_version,
//                 release, built_at, seconds, jobs, objects, image_bytes.
//                 cgmem vm reads patches and version from it (vm/built.h)
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
  std::vector<std::string> patches;   // applied, in order ("memory-high-throttle", "memcg-stock-slots")
  std::vector<std::string> upstream;  // asked for but skipped: the source has them upstream
  std::string source_version;  // the key's part: "6.12.117-1~deb12u1", "file SIZE MTIME", "dir 6.16.3 DIGEST"
  std::string version;         // the kernel's: "6.12.117" (empty in entries built before it was recorded)
  std::string source;          // the tarball or directory it was built from
  std::string release;         // "6.12.117-cgmem-hz1000-throttle"
  std::string built_at;        // ISO 8601 UTC
  double seconds = 0;          // the whole build
  unsigned jobs = 0;
  uint64_t objects = 0;        // files the compiler step compiled, for the next build's progress
  uint64_t image_bytes = 0;

  std::string image() const { return dir + "/bzImage"; }
  // build.json's "patch": the applied patches joined with ",", "" for none
  // (one patch: its name, as before there could be several).
  std::string patch() const;
};

// $XDG_CACHE_HOME/cgmem/kernels (from vm::cache_dir).
Result<std::string> kernels_dir();

// A directory with a build.json that is not a whole entry, and why.
struct BadEntry {
  std::string dir;
  std::string reason;  // "build.json: hz is 1180591620717411303424, not a CONFIG_HZ (10 to 10000)"
};

struct Listing {
  std::vector<Entry> entries;  // by name then newest first
  std::vector<BadEntry> bad;   // by directory
};

// Every built kernel in `kernels`. Directories without a build.json (Debian
// packages, half-written ones) are not entries; one whose build.json cannot
// be read or says what no build writes, or whose bzImage is not a regular
// file, is a bad entry: listed with its reason, never used.
Listing list_cache(const std::string& kernels);
std::vector<Entry> list_entries(const std::string& kernels);  // list_cache(kernels).entries

// The entry NAME-KEY, if it is there and whole.
std::optional<Entry> find_entry(const std::string& kernels, const std::string& name, const std::string& key);

// The kernel a user means by NAME: the entry with this cgmem's key for it
// when built, else the newest entry of that name (older inputs), else an
// error that gives the command that builds it.
Result<Entry> resolve_entry(const std::string& kernels, const std::string& name,
                            const std::optional<std::string>& current_key);

// The most a build.json may hold (it is about 400 bytes).
inline constexpr uint64_t kMaxEntryFile = 1 << 20;

// build.json <-> Entry. read_entry reads DIR/build.json (a regular file,
// opened non-blocking, of at most kMaxEntryFile) with every field's type
// and range checked; the error's `what` says which is wrong, and `err` is
// ENOENT when there is no build.json at all.
std::string entry_json(const Entry& entry);
Result<Entry> read_entry(const std::string& dir);

}  // namespace cgmem::kernel
