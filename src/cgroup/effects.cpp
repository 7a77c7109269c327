#include "cgroup/effects.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
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
  int send_signal(pid_t pid, int signal) override {
    return ::kill(pid, signal) == 0 ? 0 : errno;
  }
};

}  // namespace

Effects& system_effects() {
  static SystemEffects effects;
  return effects;
}

}  // namespace cgmem::cgroup
