#include "vm/locate.h"

#include <filesystem>
#include <fstream>
#include <optional>

#include "vm/elf.h"

namespace fs = std::filesystem;

namespace cgmem::vm {

namespace {

// The build directory above `binary`: the nearest parent with CMakeCache.txt.
std::optional<fs::path> build_tree_of(const fs::path& binary) {
  for (fs::path dir = binary.parent_path(); !dir.empty() && dir != dir.root_path(); dir = dir.parent_path()) {
    if (fs::exists(dir / "CMakeCache.txt")) return dir;
  }
  return std::nullopt;
}

// CMAKE_HOME_DIRECTORY from a CMakeCache.txt: the source tree.
std::string source_tree_of(const fs::path& build) {
  std::ifstream in(build / "CMakeCache.txt");
  const std::string key = "CMAKE_HOME_DIRECTORY:INTERNAL=";
  for (std::string line; std::getline(in, line);)
    if (line.starts_with(key)) return line.substr(key.size());
  return {};
}

bool is_static(const std::string& path) {
  auto result = is_static_executable(path);
  return result && *result;
}

}  // namespace

Result<std::string> find_static_cgmem(const std::string& explicit_path, const std::string& self) {
  if (!explicit_path.empty()) {
    auto result = is_static_executable(explicit_path);
    if (!result) return std::unexpected(result.error());
    if (!*result) return fail("--cgmem " + explicit_path + " is dynamically linked; the guest needs a static cgmem");
    return fs::absolute(explicit_path).string();
  }
  if (is_static(self)) return self;
  auto build = build_tree_of(self);
  std::string looked = "this cgmem (" + self + ") is dynamically linked";
  std::string source = ".";
  if (build) {
    // build/release -> build/static, or a static build nested in the build dir.
    for (const fs::path& candidate : {build->parent_path() / "static/src/cli/cgmem", *build / "static/src/cli/cgmem"}) {
      if (is_static(candidate)) return candidate.lexically_normal().string();
    }
    looked += " and " + (build->parent_path() / "static/src/cli/cgmem").lexically_normal().string() +
              " is not a static cgmem";
    if (auto tree = source_tree_of(*build); !tree.empty()) source = tree;
  }
  std::string static_dir = build ? (build->parent_path() / "static").lexically_normal().string() : "build/static";
  return fail("no statically linked cgmem to run in the guest: " + looked, {},
              "build it with 'cmake -S " + source + " -B " + static_dir +
                  " -G Ninja -DCGMEM_STATIC=ON -DCGMEM_TESTS=OFF && cmake --build " + static_dir +
                  " --target cgmem', or pass --cgmem PATH");
}

Result<std::string> find_static_busybox() {
  for (const char* path : {"/bin/busybox", "/usr/bin/busybox", "/sbin/busybox"}) {
    if (is_static(path)) return std::string(path);
  }
  return fail("no statically linked busybox at /bin/busybox", {},
              "install it: apt-get install busybox-static");
}

}  // namespace cgmem::vm
