// Can this process use a cgroup v2 memory controller? Decided by reading
// only: mountinfo for the cgroup2 mount, the root's cgroup.controllers, this
// process's v2 cgroup (/proc/self/cgroup "0::PATH") and its controllers, and
// access(W_OK) on that directory. Nothing is written.
#include <unistd.h>

#include "host/cgroups.h"
#include "cgroup/lists.h"
#include "cgroup/mountinfo.h"
#include "cgroup/reader.h"
#include "proc/self_cgroup.h"

namespace cgmem::host {

namespace {

constexpr char kWayOut[] =
    "run cgmem's real-kernel commands in its VM, which boots its own kernel with a cgroup v2 "
    "memory controller: cgmem vm -- COMMAND";

// Where to read a mount point's files: under roots.sys when it is below /sys.
std::string readable_path(const HostRoots& roots, const std::string& mount_point) {
  if (mount_point == "/sys" || mount_point.starts_with("/sys/")) {
    return roots.sys + mount_point.substr(4);
  }
  return mount_point;
}

std::vector<std::string> words_of(const std::string& path) {
  auto text = cgroup::read_text(path);
  return text ? cgroup::parse_controllers(*text) : std::vector<std::string>{};
}

bool contains(const std::vector<std::string>& words, std::string_view word) {
  for (const auto& w : words) {
    if (w == word) return true;
  }
  return false;
}

void not_usable(HostFacts& facts, std::string reason) {
  facts.memory_controller_usable = false;
  facts.memory_reason = std::move(reason);
  facts.way_out = kWayOut;
}

// The memory controller decision, once the mount and own cgroup are known.
void decide(const HostRoots& roots, HostFacts& facts) {
  const std::string& mount = *facts.cgroup2_mount;
  if (!contains(facts.cgroup2_controllers, "memory")) {
    std::string reason = "the cgroup2 hierarchy at " + mount + " has no memory controller";
    if (facts.memory_v1_mount) {
      reason += "; memory is bound to cgroup v1 (mounted at " + *facts.memory_v1_mount + ")";
    }
    return not_usable(facts, reason);
  }
  if (!facts.own_cgroup) {
    return not_usable(facts, "this process has no cgroup v2 line (0::PATH) in /proc/self/cgroup");
  }
  std::string own = *facts.own_cgroup == "/" ? mount : mount + *facts.own_cgroup;
  if (!contains(facts.own_controllers, "memory")) {
    return not_usable(facts, "the memory controller is not enabled for this process's cgroup " +
                                 own + " (its parent's cgroup.subtree_control lacks memory)");
  }
  std::string own_readable = readable_path(roots, own);
  if (::access(own_readable.c_str(), W_OK) != 0) {
    return not_usable(facts, "this process may not create cgroups under " + own +
                                 " (not root, and the cgroup is not delegated to this user)");
  }
  facts.memory_controller_usable = true;
  facts.memory_reason = "cgmem can create child cgroups with memory limits under " + own;
  facts.way_out.clear();
}

}  // namespace

void probe_cgroups(const HostRoots& roots, HostFacts& facts) {
  auto mountinfo = cgroup::read_text(roots.proc + "/self/mountinfo");
  auto mounts = cgroup::parse_mountinfo(mountinfo ? *mountinfo : std::string());
  facts.cgroup2_mount = cgroup::cgroup2_mount(mounts);
  facts.memory_v1_mount = cgroup::cgroup1_mount(mounts, "memory");
  if (auto text = cgroup::read_text(roots.proc + "/self/cgroup")) {
    if (auto cgroups = proc::parse_proc_cgroup(*text)) facts.own_cgroup = cgroups->v2_path();
  }
  if (!facts.cgroup2_mount) {
    std::string reason = "no cgroup2 file system is mounted (" + roots.proc + "/self/mountinfo)";
    if (facts.memory_v1_mount) {
      reason += "; memory is bound to cgroup v1 (mounted at " + *facts.memory_v1_mount + ")";
    }
    return not_usable(facts, reason);
  }
  std::string root = readable_path(roots, *facts.cgroup2_mount);
  facts.cgroup2_controllers = words_of(root + "/cgroup.controllers");
  facts.cgroup2_enabled = words_of(root + "/cgroup.subtree_control");
  if (facts.own_cgroup) {
    std::string own = *facts.own_cgroup == "/" ? root : root + *facts.own_cgroup;
    facts.own_controllers = words_of(own + "/cgroup.controllers");
  }
  decide(roots, facts);
}

}  // namespace cgmem::host
