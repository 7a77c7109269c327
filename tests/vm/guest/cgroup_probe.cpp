// cgroup-probe: drives the Cgroup handle (src/cgroup) against the real
// kernel in the VM guest and prints what each step saw, one "key=value" a
// line, for host-side checks (vm_rig_test.cpp). Built static for the guest.
//
// Steps, under $CGMEM_CGROUP_PARENT (the guest's /sys/fs/cgroup/cgmem):
// create "handle", set memory.max 64M, spawn `cgmem-alloc 16 hold` into it,
// wait until it has allocated, read memory.current and procs, kill_all,
// wait_empty, reap the child, remove, and check the directory is gone.
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

#include "cgroup/cgroup.h"
#include "cgroup/files.h"

using namespace cgmem;
using namespace cgmem::cgroup;

namespace {

void put(const char* key, const std::string& value) { std::printf("%s=%s\n", key, value.c_str()); }

template <typename T>
bool check(const char* step, const Result<T>& result) {
  put(step, result ? "ok" : "error: " + result.error().message());
  return result.has_value();
}

}  // namespace

int main() {
  const char* parent_path = std::getenv("CGMEM_CGROUP_PARENT");
  auto parent = Cgroup::open(parent_path ? parent_path : "/sys/fs/cgroup/cgmem");
  if (!check("open_parent", parent)) return 1;
  auto child = parent->create_child("handle");
  if (!check("create", child)) return 1;
  auto limit = child->set_limit(files::kMemoryMax, Limit::of(64 << 20));
  if (check("set_limit", limit)) put("memory_max", std::to_string(limit->bytes()));
  auto pid = child->spawn({.argv = {"cgmem-alloc", "16", "hold"}});
  if (!check("spawn", pid)) return 1;
  // 16 MiB touched takes well under 10 s even under emulation.
  uint64_t current = 0;
  for (int i = 0; i < 200 && current < (16u << 20); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    if (auto now = child->read_counter(files::kMemoryCurrent)) current = *now;
  }
  put("memory_current", std::to_string(current));
  auto procs = child->procs();
  if (check("procs", procs)) put("procs_count", std::to_string(procs->size()));
  put("procs_has_child", procs && procs->size() == 1 && (*procs)[0] == *pid ? "yes" : "no");
  check("kill_all", child->kill_all());
  check("wait_empty", child->wait_empty(std::chrono::seconds(5)));
  int status = 0;
  waitpid(*pid, &status, 0);
  put("child_signal", WIFSIGNALED(status) ? std::to_string(WTERMSIG(status)) : "none");
  auto populated = child->populated();
  if (check("populated", populated)) put("populated_after", *populated ? "1" : "0");
  check("remove", child->remove());
  put("gone", access((std::string(parent->path()) + "/handle").c_str(), F_OK) != 0 ? "yes" : "no");
  return 0;
}
