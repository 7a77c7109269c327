#include "vm/tree_files.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <fmt/format.h>
#include <set>

#include "vm/elf_deps.h"

namespace cgmem::vm {

namespace {

namespace fs = std::filesystem;

// The guest's own files: a tree mounted on one of these (or above one)
// would hide busybox, cgmem, the libraries or the run disk.
const char* const kGuestDirs[] = {"/bin", "/lib", "/lib64", "/usr/local/bin", "/etc", "/vm", "/proc",
                                  "/sys", "/dev", "/tmp", "/run", "/boot", "/init"};

bool is_under(const std::string& path, const std::string& dir) {
  return path == dir || (path.starts_with(dir) && (dir.ends_with('/') || path[dir.size()] == '/'));
}

Result<std::string> check_tree(const std::string& tree) {
  if (!tree.starts_with('/')) return fail("--tree " + tree + ": give an absolute path (the guest mounts it there)");
  std::string path = fs::path(tree).lexically_normal().string();
  while (path.size() > 1 && path.ends_with('/')) path.pop_back();
  if (path.find_first_of(" \t\n\r'\"\\") != std::string::npos)
    return fail("--tree " + tree + ": a path with white space, quotes or backslashes is not supported");
  for (const char* dir : kGuestDirs)
    if (is_under(dir, path) || is_under(path, dir))
      return fail(fmt::format("--tree {}: the guest's own files are in {}", tree, dir), {},
                  "give a directory below /usr or /opt, e.g. /usr/lib/jvm/java-17-openjdk-amd64");
  std::error_code ec;
  if (!fs::is_directory(path, ec)) return fail("--tree: not a directory", path);
  return path;
}

bool is_elf(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return false;
  std::array<char, 4> magic{};
  bool elf = ::read(fd, magic.data(), magic.size()) == 4 && std::string_view(magic.data(), 4) == "\x7f" "ELF";
  ::close(fd);
  return elf;
}

Result<void> walk(const fs::path& dir, const std::string& relative, std::vector<std::string>& above,
                  const std::function<Result<void>(const std::string&, const std::string&)>& each, uint64_t& left_out) {
  std::error_code ec;
  above.push_back(fs::canonical(dir, ec).string());
  fs::directory_iterator it(dir, ec), end;
  if (ec) return fail("--tree: read " + dir.string() + ": " + ec.message());
  for (; it != end; it.increment(ec)) {
    if (ec) return fail("--tree: read " + dir.string() + ": " + ec.message());
    const fs::path& path = it->path();
    std::string rel = relative.empty() ? path.filename().string() : relative + "/" + path.filename().string();
    fs::file_status target = fs::status(path, ec);  // follows a symlink
    if (ec || !fs::exists(target)) {
      ++left_out;
      ec.clear();
      continue;
    }
    bool link = fs::is_symlink(it->symlink_status(ec));
    if (fs::is_directory(target)) {
      if (link && std::find(above.begin(), above.end(), fs::canonical(path, ec).string()) != above.end()) {
        ++left_out;  // a link back up the tree would copy it forever
        continue;
      }
      if (auto ok = walk(path, rel, above, each, left_out); !ok) return ok;
    } else if (fs::is_regular_file(target)) {
      if (auto ok = each(link ? fs::canonical(path, ec).string() : path.string(), rel); !ok) return ok;
    }  // sockets, fifos and devices are not files a program reads
  }
  above.pop_back();
  return {};
}

}  // namespace

Result<void> walk_tree(const std::string& root, const std::function<Result<void>(const std::string&, const std::string&)>& each,
                       uint64_t& left_out) {
  std::vector<std::string> above;
  return walk(root, "", above, each, left_out);
}

Result<TreePlan> plan_trees(const std::vector<std::string>& trees, const std::vector<std::string>& loader_dirs) {
  TreePlan plan;
  for (const auto& tree : trees) {
    auto path = check_tree(tree);
    if (!path) return std::unexpected(path.error());
    for (const auto& other : plan.trees)
      if (is_under(*path, other) || is_under(other, *path))
        return fail(fmt::format("--tree {}: it overlaps --tree {}", tree, other));
    plan.trees.push_back(*path);
  }
  // First every file (a library one tree's file needs may be in another
  // tree), then what the ELF files among them need from outside.
  std::set<std::string> tree_sonames;
  std::vector<std::string> elf_files;
  for (const auto& tree : plan.trees) {
    auto listed = walk_tree(tree, [&](const std::string& host, const std::string& rel) -> Result<void> {
      ++plan.files;
      std::error_code ec;
      plan.bytes += fs::file_size(host, ec);
      if (is_elf(host)) {
        elf_files.push_back(tree + "/" + rel);
        tree_sonames.insert(fs::path(rel).filename().string());
      }
      return {};
    }, plan.left_out);
    if (!listed) return std::unexpected(listed.error());
  }
  LibraryWalk walk;
  // A library a tree has is found there in the guest too: through the
  // needing file's RUNPATH, or already loaded (a JDK's libjvm.so).
  walk.provided = [&](const std::string& soname) { return tree_sonames.contains(soname); };
  walk.inside = [&](const std::string& found) {
    for (const auto& tree : plan.trees)
      if (is_under(found, tree) || is_under(fs::weakly_canonical(found).string(), fs::weakly_canonical(tree).string()))
        return true;
    return false;
  };
  for (const auto& file : elf_files) {
    auto deps = read_elf_deps(file);
    if (!deps || !deps->x86_64) continue;  // an ELF the guest would not run (a 32-bit one, a bad one)
    if (auto ok = add_needed_libraries(*deps, file, loader_dirs, walk); !ok) return std::unexpected(ok.error());
  }
  plan.libraries = std::move(walk.files);
  plan.missing = std::move(walk.missing);
  return plan;
}

std::string trees_manifest(const TreePlan& plan) {
  std::string text;
  for (const auto& tree : plan.trees) text += tree + "\n";
  return text;
}

std::string links_manifest(const TreePlan& plan) {
  std::string text;
  for (const auto& lib : plan.libraries)
    text += fmt::format("/{} /vm/{}/{}\n", lib.guest_path, kDiskLibDir, fs::path(lib.guest_path).filename().string());
  return text;
}

}  // namespace cgmem::vm
