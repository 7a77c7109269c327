#include "host/watchable.h"

#include <sys/stat.h>

#include <filesystem>
#include <system_error>
#include <vector>


namespace cgmem::host {
namespace {

namespace fs = std::filesystem;

// Any entry of that name, followed or not: a cgroup whose memory.current is
// there but cannot be read (a FIFO or a directory in a tree handed to
// cgmem) is watched and shown as unknown; only a tree with none has no
// controller.
bool has_memory_current(const fs::path& dir) {
  struct stat st{};
  return ::lstat((dir / "memory.current").c_str(), &st) == 0;
}

}  // namespace

std::optional<std::string> no_memory_controller(const std::string& root, int max_depth,
                                                const std::optional<std::string>& memory_v1_mount) {
  if (has_memory_current(root)) return std::nullopt;
  // Breadth first, by level: a v2 tree with the controller on shows it one level down.
  std::vector<fs::path> level{root}, next;
  size_t looked = 0;
  for (int depth = 0; !level.empty() && (max_depth < 0 || depth < max_depth); ++depth) {
    next.clear();
    for (const fs::path& dir : level) {
      std::error_code ec;
      for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        if (!it->is_directory(ec) || it->is_symlink(ec)) continue;
        if (has_memory_current(it->path())) return std::nullopt;
        if (++looked >= kWatchableWalkLimit) break;
        next.push_back(it->path());
      }
      if (looked >= kWatchableWalkLimit) break;
    }
    if (looked >= kWatchableWalkLimit) break;
    level.swap(next);
  }
  std::string reason = "no cgroup under " + root + " has memory.current: the cgroup v2 memory controller is not enabled there";
  if (memory_v1_mount) reason += "; memory is bound to cgroup v1 (mounted at " + *memory_v1_mount + ")";
  return reason;
}

}  // namespace cgmem::host
