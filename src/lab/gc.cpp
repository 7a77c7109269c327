#include "lab/gc.h"

#include <dirent.h>
#include <sys/stat.h>

#include <chrono>

#include "cgroup/cgroup.h"
#include "lab/marker.h"

namespace cgmem::lab {
namespace {

std::string remove_one(const std::string& path) {
  auto cg = cgroup::Cgroup::open(path);
  if (!cg) return "failed: " + cg.error().message();
  if (auto killed = cg->kill_all(); !killed) return "failed: " + killed.error().message();
  if (auto empty = cg->wait_empty(std::chrono::seconds(10)); !empty)
    return "failed: " + empty.error().message();
  if (auto removed = cg->remove(); !removed) return "failed: " + removed.error().message();
  return "removed";
}

}  // namespace

Result<std::vector<GcEntry>> collect_garbage(const std::string& parent, bool dry_run,
                                             const std::string& proc_root) {
  // A plain directory can hold a cgroup.procs and even the mark; only a
  // cgroup2 directory is looked at, before anything is read or killed.
  auto parent_cg = cgroup::Cgroup::open(parent);
  if (!parent_cg) return std::unexpected(parent_cg.error());
  if (auto ok = parent_cg->require_cgroupfs("collect garbage under"); !ok) return std::unexpected(ok.error());
  DIR* dir = ::opendir(parent.c_str());
  if (dir == nullptr) return sys_error("list the cgroups under", parent, "pass --parent");
  std::vector<std::string> children;
  while (dirent* entry = ::readdir(dir)) {
    std::string_view name = entry->d_name;
    if (entry->d_type != DT_DIR || name == "." || name == "..") continue;
    children.push_back(parent + "/" + std::string(name));
  }
  ::closedir(dir);
  std::vector<GcEntry> out;
  for (const auto& path : children) {
    auto mark = read_mark(path);
    if (!mark) continue;  // not cgmem's
    GcEntry entry{.cgroup = path, .driver = mark->driver, .run_dir = mark->run_dir};
    if (driver_alive(mark->driver, proc_root)) entry.action = "in use";
    else entry.action = dry_run ? "would remove" : remove_one(path);
    out.push_back(std::move(entry));
  }
  return out;
}

std::string default_parent(const std::string& mount, const std::string& own_cgroup) {
  std::string vm = mount + "/cgmem";
  struct stat st{};
  if (::stat(vm.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) return vm;
  return own_cgroup == "/" ? mount : mount + own_cgroup;
}

}  // namespace cgmem::lab
