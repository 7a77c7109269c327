// The block device io.max needs for a path.
//
// io.max takes the whole disk ("254:0"), not a partition: a file on
// /dev/vda1 (254:1) is limited through 254:0. sysfs tells them apart:
// /sys/dev/block/254:1 links to .../vda/vda1, which has a `partition` file,
// and its parent directory .../vda has `dev` = "254:0".
#pragma once

#include <string>

#include "cgroup/nested_keyed.h"
#include "common/error.h"

namespace cgmem::cgroup {

// The device that holds path: st_rdev for a block device node, else st_dev.
Result<DeviceId> device_of(const std::string& path);

// The whole disk of device (itself when it is not a partition), read under
// sys_root ("/sys"). Error when sysfs does not know it as a block device
// (tmpfs, overlayfs and NFS have anonymous devices like 0:45).
Result<DeviceId> whole_disk(DeviceId device, const std::string& sys_root = "/sys");

// device_of then whole_disk: what to write to io.max to limit I/O to path.
Result<DeviceId> io_device_for(const std::string& path, const std::string& sys_root = "/sys");

}  // namespace cgmem::cgroup
