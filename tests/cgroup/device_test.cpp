// Resolving the block device io.max needs, on a sysfs fixture built here.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <filesystem>

#include "cgroup/device.h"
#include "support/fixture.h"

namespace cgmem::cgroup {
namespace {

using testing::spit;
using testing::TempDir;
namespace fs = std::filesystem;

// sys/devices/virtual/block/vda/{dev, vda1/{dev, partition}} and
// sys/dev/block/{254:0, 254:1} -> those directories, as the kernel lays them out.
std::string make_sys(const TempDir& dir) {
  std::string sys = dir.path() + "/sys";
  std::string vda = sys + "/devices/pci0000:00/0000:00:04.0/virtio1/block/vda";
  fs::create_directories(vda + "/vda1");
  fs::create_directories(sys + "/dev/block");
  spit(vda + "/dev", "254:0\n");
  spit(vda + "/vda1/dev", "254:1\n");
  spit(vda + "/vda1/partition", "1\n");
  fs::create_directory_symlink("../../devices/pci0000:00/0000:00:04.0/virtio1/block/vda",
                               sys + "/dev/block/254:0");
  fs::create_directory_symlink("../../devices/pci0000:00/0000:00:04.0/virtio1/block/vda/vda1",
                               sys + "/dev/block/254:1");
  return sys;
}

TEST(WholeDisk, APartitionMapsToItsDisk) {
  TempDir dir;
  std::string sys = make_sys(dir);
  EXPECT_EQ(whole_disk({254, 1}, sys).value(), (DeviceId{254, 0}));
}

TEST(WholeDisk, ADiskIsItself) {
  TempDir dir;
  std::string sys = make_sys(dir);
  EXPECT_EQ(whole_disk({254, 0}, sys).value(), (DeviceId{254, 0}));
}

TEST(WholeDisk, AnAnonymousDeviceIsAnErrorWordForWord) {
  TempDir dir;
  std::string sys = make_sys(dir);
  auto disk = whole_disk({0, 45}, sys);
  ASSERT_FALSE(disk.has_value());
  EXPECT_EQ(disk.error().message(),
            "find block device 0:45: " + sys +
                "/dev/block/0:45: No such file or directory (io.max needs a file on a disk; tmpfs, "
                "overlayfs and network file systems have no block device)");
}

TEST(WholeDisk, ABadParentDevFileIsAnErrorWordForWord) {
  TempDir dir;
  std::string sys = make_sys(dir);
  std::string vda = sys + "/devices/pci0000:00/0000:00:04.0/virtio1/block/vda";
  spit(vda + "/dev", "vda\n");
  auto disk = whole_disk({254, 1}, sys);
  ASSERT_FALSE(disk.has_value());
  EXPECT_EQ(disk.error().message(), "parse " + vda + "/dev: expected MAJ:MIN, got 'vda'");
}

TEST(DeviceOf, ReadsTheDeviceOfAFile) {
  TempDir dir;
  struct stat st {};
  ASSERT_EQ(::stat(dir.path().c_str(), &st), 0);
  auto device = device_of(dir.path());
  ASSERT_TRUE(device.has_value());
  EXPECT_EQ(device->major, major(st.st_dev));
  EXPECT_EQ(device->minor, minor(st.st_dev));
}

TEST(DeviceOf, MissingPathIsAnErrorWordForWord) {
  EXPECT_EQ(device_of("/nonexistent/file").error().message(),
            "stat: /nonexistent/file: No such file or directory");
}

}  // namespace
}  // namespace cgmem::cgroup
