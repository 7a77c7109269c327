// Cgroup trees for the scanner's tests: directories holding the files of the
// real throttled cgroup read in the VM (tests/fixtures/cgroup-v2-6.12-throttled),
// and a /proc with that cgroup's task. A file is changed in place (same
// inode), as the kernel changes a control file.
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

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

// A chain of directories under ROOT whose path below it is at least CHARS
// long ("/ddd.../ddd..."), made with mkdirat level by level (one absolute
// path may not pass 4096 bytes); the deepest holds a memory.current.
// Returns the relative path. remove_deep_tree takes it away again
// (std::filesystem::remove_all cannot: it walks by absolute paths).
inline std::string make_deep_tree(const std::string& root, size_t chars) {
  const std::string name(250, 'd');
  std::string rel;
  int fd = ::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  while (fd >= 0 && rel.size() < chars) {
    (void)::mkdirat(fd, name.c_str(), 0755);
    int child = ::openat(fd, name.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    ::close(fd);
    fd = child;
    rel += "/" + name;
  }
  int file = ::openat(fd, "memory.current", O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  (void)::write(file, "4096\n", 5);
  ::close(file);
  ::close(fd);
  return rel;
}

inline void remove_deep_tree(const std::string& root) {
  const std::string name(250, 'd');
  std::vector<int> fds{::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)};
  while (fds.back() >= 0) fds.push_back(::openat(fds.back(), name.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  fds.pop_back();
  for (size_t i = fds.size(); i-- > 0;) {
    if (i + 1 == fds.size()) (void)::unlinkat(fds[i], "memory.current", 0);
    if (i > 0) (void)::unlinkat(fds[i - 1], name.c_str(), AT_REMOVEDIR);
    ::close(fds[i]);
  }
}

}  // namespace cgmem::watch::testing
