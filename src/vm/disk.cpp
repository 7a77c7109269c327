#include "vm/disk.h"

#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>

#include "common/file.h"
#include "common/process.h"

namespace fs = std::filesystem;

namespace cgmem::vm {

namespace {

Result<void> write_text(const fs::path& path, const std::string& text) { return write_file(path.string(), text); }

}  // namespace

Result<void> make_disk(const DiskSpec& spec) {
  std::error_code ec;
  fs::path root = spec.staging;
  for (const char* dir : {"cgmem-vm", "in", "out"}) {
    fs::create_directories(root / dir, ec);
    if (ec) return fail("create " + (root / dir).string() + ": " + ec.message());
  }
  if (auto ok = write_text(root / "cgmem-vm/config", spec.config); !ok) return ok;
  if (auto ok = write_text(root / "cgmem-vm/command.sh", spec.command); !ok) return ok;
  for (const auto& input : spec.inputs) {
    fs::path from = fs::absolute(input, ec);
    fs::copy(from, root / "in" / from.filename(),
             fs::copy_options::recursive | fs::copy_options::copy_symlinks, ec);
    if (ec) return fail("copy " + input + " into the run disk: " + ec.message());
  }
  // The host initialises the inode tables and journal now, so no ext4lazyinit
  // thread writes to the disk in the guest while a run measures io.
  std::vector<std::string> mkfs = {"mkfs.ext4", "-F", "-q", "-L", "cgmem-vm",
                                   "-E", "lazy_itable_init=0,lazy_journal_init=0",
                                   "-d", spec.staging, spec.image, std::to_string(spec.size_bytes / 1024) + "k"};
  auto made = run_program(mkfs);
  if (!made) return std::unexpected(made.error());
  if (made->exit_code != 0) {
    return fail(fmt::format("'{}' failed: {}", command_line(mkfs), made->output), {},
                "mkfs.ext4 -d needs e2fsprogs 1.43 or newer: apt-get install e2fsprogs");
  }
  return {};
}

Result<void> read_back(const std::string& image, const std::string& from, const std::string& to) {
  // rdump writes DIR/<basename of from>; dump into a fresh directory, then move.
  std::string scratch = to + ".rdump-XXXXXX";
  if (!mkdtemp(scratch.data())) return sys_error("create a directory to read the run disk into", scratch);
  std::vector<std::string> rdump = {"debugfs", "-R", "rdump " + from + " " + scratch, image};
  auto dumped = run_program(rdump);
  std::error_code ec;
  fs::path got = fs::path(scratch) / fs::path(from).filename();
  if (!dumped || dumped->exit_code != 0 || !fs::is_directory(got)) {
    fs::remove_all(scratch, ec);
    if (!dumped) return std::unexpected(dumped.error());
    return fail(fmt::format("'{}' did not read {}: {}", command_line(rdump), from, dumped->output));
  }
  fs::rename(got, to, ec);
  if (ec) {
    fs::remove_all(scratch, ec);
    return fail("move the results to " + to + ": " + ec.message());
  }
  fs::remove_all(scratch, ec);
  return {};
}

}  // namespace cgmem::vm
