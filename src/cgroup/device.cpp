#include "cgroup/device.h"

#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>

#include "cgroup/reader.h"
#include "common/text.h"

namespace cgmem::cgroup {

Result<DeviceId> device_of(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return sys_error("stat", path);
  dev_t dev = S_ISBLK(st.st_mode) ? st.st_rdev : st.st_dev;
  return DeviceId{static_cast<uint32_t>(major(dev)), static_cast<uint32_t>(minor(dev))};
}

Result<DeviceId> whole_disk(DeviceId device, const std::string& sys_root) {
  std::string link = sys_root + "/dev/block/" + device.text();
  char resolved[PATH_MAX];
  if (::realpath(link.c_str(), resolved) == nullptr) {
    return sys_error("find block device " + device.text(), link,
                     "io.max needs a file on a disk; tmpfs, overlayfs and network file systems "
                     "have no block device");
  }
  std::string dir = resolved;
  if (::access((dir + "/partition").c_str(), F_OK) != 0) return device;
  std::string parent_dev = dir.substr(0, dir.rfind('/')) + "/dev";
  auto text = read_text(parent_dev);
  if (!text) return std::unexpected(text.error());
  auto disk = to_device(trim(*text));
  if (!disk) return fail("parse " + parent_dev + ": expected MAJ:MIN, got " + quote(*text));
  return *disk;
}

Result<DeviceId> io_device_for(const std::string& path, const std::string& sys_root) {
  auto device = device_of(path);
  if (!device) return device;
  return whole_disk(*device, sys_root);
}

}  // namespace cgmem::cgroup
