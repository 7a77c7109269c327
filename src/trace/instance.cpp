#include "trace/instance.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <utility>

#include "common/fd.h"
#include "common/file.h"

namespace cgmem::trace {

Result<Instance> Instance::create(const std::string& tracefs, const std::string& name) {
  struct stat st{};
  if (::stat((tracefs + "/instances").c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    return sys_error("find tracefs's instances", tracefs + "/instances",
                     fmt::format("mount tracefs: mount -t tracefs nodev {}", tracefs));
  std::string path = tracefs + "/instances/" + name;
  if (::mkdir(path.c_str(), 0700) != 0) {
    if (errno == EEXIST)
      return sys_error("create a trace instance", path,
                       "it is not this run's: another cgmem run (or a killed one) made it; remove it with rmdir "
                       "once no run uses it");
    return sys_error("create a trace instance", path);
  }
  return Instance(std::move(path));
}

Instance::Instance(Instance&& other) noexcept
    : path_(std::move(other.path_)), removed_(std::exchange(other.removed_, true)) {}

Result<void> Instance::write(std::string_view rel, std::string_view value) const {
  std::string path = file(rel);
  Fd fd(::open(path.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW));
  if (!fd.valid()) return sys_error(fmt::format("open {} to write '{}'", rel, value), path);
  if (auto ok = write_all(fd.get(), value); !ok) {
    Error error = ok.error();
    error.what = fmt::format("write '{}' to {}", value, rel);
    error.path = path;
    return std::unexpected(error);
  }
  return {};
}

Result<std::string> Instance::read(std::string_view rel) const {
  return read_file(file(rel), rel, uint64_t{1} << 20);
}

Result<void> Instance::remove() {
  if (removed_) return {};
  removed_ = true;
  (void)write("events/enable", "0");
  (void)write("tracing_on", "0");
  if (::rmdir(path_.c_str()) != 0) return sys_error("remove the trace instance", path_);
  return {};
}

}  // namespace cgmem::trace
