#include "cgroup/effects.h"

#include <fcntl.h>
#include <signal.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <cerrno>

#include "cgroup/reader.h"

namespace cgmem::cgroup {

namespace {

class SystemEffects final : public Effects {
 public:
  int make_dir(int parent_fd, const std::string& name) override {
    return ::mkdirat(parent_fd, name.c_str(), 0755) == 0 ? 0 : errno;
  }
  int remove_dir(const std::string& path) override {
    return ::rmdir(path.c_str()) == 0 ? 0 : errno;
  }
  int write_file(int dir_fd, const char* name, std::string_view text) override {
    return write_text_at(dir_fd, name, text);
  }
  int write_file_nonblocking(int dir_fd, const char* name, std::string_view text) override {
    return write_text_at(dir_fd, name, text, O_NONBLOCK);
  }
  int send_signal(pid_t pid, int signal) override {
    return ::kill(pid, signal) == 0 ? 0 : errno;
  }
  int set_xattr(const std::string& path, const char* name, std::string_view value) override {
    return ::setxattr(path.c_str(), name, value.data(), value.size(), 0) == 0 ? 0 : errno;
  }
  bool on_cgroupfs(int dir_fd) override {
    struct statfs fs{};
    return ::fstatfs(dir_fd, &fs) == 0 && fs.f_type == CGROUP2_SUPER_MAGIC;
  }
};

}  // namespace

Effects& system_effects() {
  static SystemEffects effects;
  return effects;
}

}  // namespace cgmem::cgroup
