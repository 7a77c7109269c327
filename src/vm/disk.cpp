#include "vm/disk.h"

#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <optional>

#include "common/file.h"
#include "common/process.h"

namespace fs = std::filesystem;

namespace cgmem::vm {

namespace {

Result<void> write_text(const fs::path& path, const std::string& text) { return write_file(path.string(), text); }

Result<void> copy_one(const std::string& from, const fs::path& to, std::optional<fs::perms> mode = std::nullopt) {
  std::error_code ec;
  fs::create_directories(to.parent_path(), ec);
  if (!ec) fs::copy_file(from, to, fs::copy_options::overwrite_existing, ec);
  if (!ec && mode) fs::permissions(to, *mode, ec);
  if (ec) return fail("copy " + from + " onto the run disk: " + ec.message());
  return {};
}

// Each tree under /tree at its own path, symlinks followed; the libraries
// its ELF files need under /libs; the manifests the guest reads.
Result<void> copy_trees(const TreePlan& plan, const fs::path& root) {
  for (const auto& tree : plan.trees) {
    uint64_t left_out = 0;
    auto copied = walk_tree(tree, [&](const std::string& host, const std::string& rel) {
      return copy_one(host, root / kDiskTreeDir / tree.substr(1) / rel);
    }, left_out);
    if (!copied) return copied;
  }
  for (const auto& lib : plan.libraries)
    if (auto ok = copy_one(lib.host_path, root / kDiskLibDir / fs::path(lib.guest_path).filename(), fs::perms(lib.mode)); !ok)
      return ok;
  if (auto ok = write_text(root / "cgmem-vm/trees", trees_manifest(plan)); !ok) return ok;
  return write_text(root / "cgmem-vm/links", links_manifest(plan));
}

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
  if (auto ok = copy_trees(spec.trees, root); !ok) return ok;
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
