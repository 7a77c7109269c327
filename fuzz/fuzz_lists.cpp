// cgroup.procs, cgroup.controllers, cgroup.subtree_control.
#include "cgroup/lists.h"
#include "fuzz.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace cgmem;
  auto text = fuzz::text(data, size);
  auto pids = cgroup::parse_procs(text);
  if (pids) {
    for (pid_t pid : *pids) fuzz::check(pid > 0);
  }
  for (const auto& word : cgroup::parse_controllers(text)) {
    fuzz::check(!word.empty());
    fuzz::check(cgroup::has_controller(text, word));
  }
  return 0;
}
