#include "vm/initramfs.h"

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "vm/cpio.h"
#include "vm/elf.h"
#include "common/process.h"

namespace cgmem::vm {

namespace {

Result<std::string> slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return sys_error("read", path);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

Result<std::string> read_static(const std::string& path, const std::string& fix) {
  auto is_static = is_static_executable(path);
  if (!is_static) return std::unexpected(is_static.error());
  if (!*is_static) return fail("not statically linked, so it cannot run in the guest", path, fix);
  return slurp(path);
}

}  // namespace

std::string initramfs_archive(const GuestFiles& files) {
  CpioWriter cpio;
  for (const char* dir : {"bin", "boot", "dev", "lib", "lib/modules", "proc", "sys", "tmp", "vm"}) {
    cpio.directory(dir);
  }
  cpio.file("init", guest_init_script(), 0755);
  cpio.file("bin/busybox", files.busybox, 0755);
  cpio.symlink("bin/sh", "busybox");
  cpio.file("bin/cgmem", files.cgmem, 0755);
  std::string order;
  for (const auto& module : files.modules) {
    cpio.file("lib/modules/" + module.name + ".ko", module.bytes);
    order += module.name + "\n";
  }
  if (!order.empty()) cpio.file("lib/modules/order", order);
  if (!files.config.empty()) cpio.file("boot/config", files.config);
  std::set<std::string> dirs = {"bin", "boot", "dev", "lib", "lib/modules", "proc", "sys", "tmp", "vm"};
  std::set<std::string> added;
  for (const auto& extra : files.extra) {
    if (!added.insert(extra.path).second) continue;  // two programs share a library
    std::string parent;
    for (const auto& part : std::filesystem::path(extra.path).parent_path()) {
      if (!parent.empty()) parent += '/';
      parent += part.string();
      if (dirs.insert(parent).second) cpio.directory(parent);
    }
    cpio.file(extra.path, extra.bytes, extra.mode);
  }
  return cpio.finish();
}

Result<GuestFiles> read_guest_files(const std::string& busybox, const std::string& cgmem,
                                    const std::string& config) {
  GuestFiles files;
  auto box = read_static(busybox, "install busybox-static: apt-get install busybox-static");
  if (!box) return std::unexpected(box.error());
  files.busybox = std::move(*box);
  auto self = read_static(cgmem, "build the static cgmem, see 'cgmem vm --help'");
  if (!self) return std::unexpected(self.error());
  files.cgmem = std::move(*self);
  if (!config.empty()) {
    auto text = slurp(config);
    if (!text) return std::unexpected(text.error());
    files.config = std::move(*text);
  }
  return files;
}

Result<void> add_extra_files(const std::vector<GuestFile>& wanted, GuestFiles& files) {
  for (const auto& file : wanted) {
    auto bytes = slurp(file.host_path);
    if (!bytes) return std::unexpected(bytes.error());
    files.extra.push_back({file.guest_path, std::move(*bytes), file.mode});
  }
  return {};
}

Result<void> write_initramfs(const std::string& archive, const std::string& path) {
  std::string raw = path + ".cpio";
  {
    std::ofstream out(raw, std::ios::binary | std::ios::trunc);
    out.write(archive.data(), static_cast<std::streamsize>(archive.size()));
    if (!out) return sys_error("write the initramfs", raw);
  }
  auto zipped = run_program_to_file({"gzip", "-n", "-c", raw}, path);
  std::error_code ec;
  std::filesystem::remove(raw, ec);
  if (!zipped) return std::unexpected(zipped.error());
  if (zipped->exit_code != 0) return fail("gzip failed: " + zipped->output, path);
  return {};
}

}  // namespace cgmem::vm
