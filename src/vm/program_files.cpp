#include "vm/program_files.h"

#include <glob.h>
#include <unistd.h>

#include <cstdlib>
#include <deque>
#include <filesystem>
#include <fmt/format.h>
#include <functional>
#include <optional>
#include <set>
#include <sstream>

#include "common/file.h"
#include "vm/elf_deps.h"

namespace cgmem::vm {

namespace {

namespace fs = std::filesystem;

// Debian's ld.so prints these as its "system search path" (ld.so --help).
const char* const kSystemDirs[] = {"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib", "/usr/lib"};

std::string trim(std::string line) {
  if (auto hash = line.find('#'); hash != std::string::npos) line.resize(hash);
  size_t start = line.find_first_not_of(" \t\r");
  size_t end = line.find_last_not_of(" \t\r");
  return start == std::string::npos ? std::string() : line.substr(start, end - start + 1);
}

void read_conf(const std::string& path, std::vector<std::string>& dirs, int depth) {
  if (depth > 8) return;  // include loops end here
  std::istringstream in(read_file_or_empty(path));
  for (std::string line; std::getline(in, line);) {
    line = trim(line);
    if (line.empty() || line.starts_with("hwcap ")) continue;
    if (!line.starts_with("include ")) {
      dirs.push_back(line);
      continue;
    }
    std::string pattern = trim(line.substr(8));
    if (!pattern.starts_with('/')) pattern = (fs::path(path).parent_path() / pattern).string();
    glob_t found{};
    if (::glob(pattern.c_str(), 0, nullptr, &found) == 0)
      for (size_t i = 0; i < found.gl_pathc; ++i) read_conf(found.gl_pathv[i], dirs, depth + 1);
    ::globfree(&found);
  }
}

Result<std::string> find_program(const std::string& program) {
  if (auto found = find_on_path(program)) return *found;
  if (program.find('/') != std::string::npos) {
    if (::access(program.c_str(), X_OK) != 0) return sys_error("--program: run", program);
    return fail(fmt::format("--program {}: not a regular file", program));
  }
  return fail(fmt::format("--program {}: not found in PATH ({})", program, search_path()), {},
              "give its path, or install it (e.g. apt-get install redis-server)");
}

std::string expand_origin(std::string dir, const std::string& origin) {
  for (const char* token : {"${ORIGIN}", "$ORIGIN"})
    for (size_t at = dir.find(token); at != std::string::npos; at = dir.find(token))
      dir.replace(at, std::string_view(token).size(), origin);
  return dir;
}

// The first file named `soname` in `search` that is an x86-64 ELF (a lib32
// dir holds 32-bit libraries of the same names, which ld.so skips too).
std::optional<std::string> find_library(const std::string& soname, const std::vector<std::string>& search) {
  for (const auto& dir : search) {
    std::string candidate = dir + "/" + soname;
    std::error_code ec;
    if (!fs::is_regular_file(candidate, ec)) continue;
    auto deps = read_elf_deps(candidate);
    if (deps && deps->x86_64) return candidate;
  }
  return std::nullopt;
}

}  // namespace

std::vector<std::string> loader_dirs(const std::string& conf) {
  std::vector<std::string> dirs;
  read_conf(conf, dirs, 0);
  for (const char* dir : kSystemDirs) dirs.emplace_back(dir);
  return dirs;
}

Result<void> add_needed_libraries(const ElfDeps& deps, const std::string& object, const std::vector<std::string>& dirs,
                                  LibraryWalk& walk) {
  struct Pending { std::string soname; std::vector<std::string> search; std::string needed_by; };
  std::deque<Pending> queue;
  auto enqueue = [&](const ElfDeps& d, const std::string& needing) {
    std::vector<std::string> search;
    std::error_code ec;
    std::string origin = fs::canonical(needing, ec).parent_path().string();
    for (const auto& dir : d.runpath) search.push_back(expand_origin(dir, origin));
    search.insert(search.end(), dirs.begin(), dirs.end());
    for (const auto& soname : d.needed) queue.push_back({soname, search, needing});
  };
  if (!deps.interp.empty() && walk.seen.insert(deps.interp).second)
    walk.files.push_back({deps.interp, deps.interp.substr(1), 0755});
  enqueue(deps, object);
  while (!queue.empty()) {
    Pending next = std::move(queue.front());
    queue.pop_front();
    if ((walk.provided && walk.provided(next.soname)) || !walk.seen.insert(next.soname).second) continue;
    auto found = find_library(next.soname, next.search);
    if (!found) {
      walk.missing.push_back(fmt::format("{} (needed by {})", next.soname, next.needed_by));
      continue;
    }
    // The loader (libc needs it too) comes once, at its PT_INTERP path.
    if (fs::path(*found).filename() == fs::path(kGuestLoader).filename()) continue;
    if (!walk.inside || !walk.inside(*found))
      walk.files.push_back({*found, std::string(kGuestLibDir) + "/" + next.soname, 0755});
    auto lib = read_elf_deps(*found);
    if (!lib) return std::unexpected(lib.error());
    enqueue(*lib, *found);
  }
  return {};
}

Result<std::vector<GuestFile>> program_files(const std::string& program, const std::vector<std::string>& dirs) {
  auto host = find_program(program);
  if (!host) return std::unexpected(host.error());
  // An absolute path is kept (a command that names it finds it); a name or a
  // relative path goes on the guest's PATH under its last component.
  std::string guest = program.starts_with('/') ? program.substr(1)
                                               : std::string(kGuestBinDir) + "/" + fs::path(program).filename().string();
  auto deps = read_elf_deps(*host);
  if (!deps) return std::unexpected(deps.error());
  if (!deps->x86_64) return fail("--program: not an x86-64 ELF program, which the guest cannot run", *host);
  LibraryWalk walk;
  walk.files.push_back({*host, guest, 0755});
  if (auto ok = add_needed_libraries(*deps, *host, dirs, walk); !ok) return std::unexpected(ok.error());
  if (!walk.missing.empty())
    return fail(fmt::format("--program {}: {} is in none of the loader's dirs", program, walk.missing.front()), {},
                "install the package that has it; the guest gets only what the host has");
  return std::move(walk.files);
}

}  // namespace cgmem::vm
