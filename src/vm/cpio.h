// A cpio archive in the "newc" format, the one the kernel unpacks as an
// initramfs. Reproducible: entries in the order added, inode numbers counted
// from 1, owner root, mtime 0.
//
// Each entry: "070701", then 13 fields of 8 hex digits (ino, mode, uid, gid,
// nlink, mtime, filesize, devmajor, devminor, rdevmajor, rdevminor,
// namesize with its NUL, check = 0), the name and a NUL padded to 4 bytes,
// the data padded to 4 bytes. The archive ends with an entry "TRAILER!!!".
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace cgmem::vm {

class CpioWriter {
 public:
  void directory(std::string_view name, uint32_t mode = 0755);
  void file(std::string_view name, std::string_view data, uint32_t mode = 0644);
  void symlink(std::string_view name, std::string_view target);
  // The whole archive, trailer included.
  std::string finish();

 private:
  void entry(std::string_view name, uint32_t mode, uint32_t nlink, std::string_view data);
  std::string out_;
  uint32_t next_ino_ = 1;
};

}  // namespace cgmem::vm
