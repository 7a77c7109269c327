#include "vm/locate.h"

#include <filesystem>
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
  fs::path sibling = fs::path(self).parent_path() / "cgmem-static";
  if (is_static(sibling)) return sibling.lexically_normal().string();
  auto build = build_tree_of(self);
  return fail("no statically linked cgmem to run in the guest: this cgmem (" + self + ") is dynamically linked and " +
                  sibling.lexically_normal().string() + " is not a static cgmem",
              {},
              "build it with 'cmake --build " + (build ? build->lexically_normal().string() : std::string("BUILD_DIR")) +
                  " --target cgmem-static', or pass --cgmem PATH");
}

Result<std::string> find_static_busybox() {
  for (const char* path : {"/bin/busybox", "/usr/bin/busybox", "/sbin/busybox"}) {
    if (is_static(path)) return std::string(path);
  }
  return fail("no statically linked busybox at /bin/busybox", {},
              "install it: apt-get install busybox-static");
}

}  // namespace cgmem::vm
