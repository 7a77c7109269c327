// Cgroup trees for the scanner's tests: directories holding the files of the
// real throttled cgroup read in the VM (tests/fixtures/cgroup-v2-6.12-throttled),
// and a /proc with that cgroup's task. A file is changed in place (same
// inode), as the kernel changes a control file.
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "support/temp_dir.h"

namespace cgmem::watch::testing {

inline const std::string kThrottled = std::string(CGMEM_FIXTURES) + "/cgroup-v2-6.12-throttled";

// Makes DIR a cgroup with the throttled fixture's files.
inline void make_cgroup(const std::string& dir) {
  namespace fs = std::filesystem;
  fs::create_directories(dir);
  for (const auto& file : fs::directory_iterator(kThrottled + "/lab-run1"))
    fs::copy_file(file.path(), fs::path(dir) / file.path().filename(),
                  fs::copy_options::overwrite_existing);
}

// PROC/158/{stat,wchan}: the throttled task (state D, mem_cgroup_handle_over_high).
inline std::string make_proc(const std::string& proc) {
  namespace fs = std::filesystem;
  fs::create_directories(proc + "/158");
  fs::copy_file(kThrottled + "/proc/stat", proc + "/158/stat");
  fs::copy_file(kThrottled + "/proc/wchan", proc + "/158/wchan");
  return proc;
}

// Rewrites a file in place with pwrite (no allocation, same inode).
inline void rewrite(int fd, const char* text, size_t size) {
  (void)::ftruncate(fd, 0);
  (void)::pwrite(fd, text, size, 0);
}

}  // namespace cgmem::watch::testing
