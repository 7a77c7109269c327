// /proc/self/cgroup: v2 "0::PATH" and v1 lines.
#include "fuzz.h"
#include "proc/self_cgroup.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace cgmem;
  auto cgroups = proc::parse_proc_cgroup(fuzz::text(data, size));
  if (!cgroups) return 0;
  fuzz::check(!cgroups->lines.empty());
  for (const auto& line : cgroups->lines) fuzz::check(line.path.starts_with('/'));
  if (auto path = cgroups->v2_path()) fuzz::check(path->starts_with('/'));
  return 0;
}
