// A host program for the guest (`cgmem vm --program NAME`): the program and
// every shared library it needs, found as the loader would find them
// (DT_NEEDED, DT_RUNPATH with $ORIGIN, /etc/ld.so.conf and its includes,
// the system dirs), read from the ELF files without running anything.
//
// In the guest's initramfs:
//   /usr/local/bin/NAME             the program (PATH has /usr/local/bin), under the
//                                   name it was given: redis-server is a symlink to
//                                   redis-check-rdb and reads its argv[0]; a program
//                                   given by absolute path keeps that path
//   /lib64/ld-linux-x86-64.so.2     its PT_INTERP, at the same path
//   /lib/x86_64-linux-gnu/SONAME    every needed library, in the first dir of the
//                                   loader's built-in search path (the guest has no
//                                   ld.so.cache, so that is where it looks)
#pragma once

#include <functional>
#include <set>
#include <string>
#include <vector>

#include "common/error.h"

namespace cgmem::vm {

inline constexpr char kGuestBinDir[] = "usr/local/bin";
inline constexpr char kGuestLibDir[] = "lib/x86_64-linux-gnu";
inline constexpr char kGuestLoader[] = "/lib64/ld-linux-x86-64.so.2";  // every x86-64 program's PT_INTERP

struct GuestFile {
  std::string host_path;   // read from here (symlinks followed)
  std::string guest_path;  // relative to the guest's root
  uint32_t mode = 0644;
};

// The dirs of /etc/ld.so.conf (and the files it includes, globbed), in order,
// then the loader's system dirs. A missing conf gives the system dirs alone.
std::vector<std::string> loader_dirs(const std::string& conf = "/etc/ld.so.conf");

// The libraries an ELF object needs, and theirs, as the loader finds them.
struct LibraryWalk {
  std::vector<GuestFile> files;         // the loader (PT_INTERP) and each library, once
  std::vector<std::string> missing;     // "SONAME (needed by OBJECT)": in none of the dirs
  std::set<std::string> seen;
  std::function<bool(const std::string& soname)> provided;  // already there (a tree has it): skip
  std::function<bool(const std::string& path)> inside;      // found where the guest has it already: not copied
};
struct ElfDeps;
Result<void> add_needed_libraries(const ElfDeps& deps, const std::string& object, const std::vector<std::string>& dirs,
                                  LibraryWalk& walk);

// `program` is a path, or a name looked up in the host's PATH. The list has
// the program first, then its loader and libraries, each once.
Result<std::vector<GuestFile>> program_files(const std::string& program, const std::vector<std::string>& dirs);

}  // namespace cgmem::vm
