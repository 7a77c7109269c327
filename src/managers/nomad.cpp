#include <fmt/format.h>

#include "managers/docker.h"
#include "managers/oci.h"
#include "managers/others.h"

namespace cgmem::managers {

Result<Translation> translate_nomad(const NomadInput& in, uint64_t page_size) {
  if (in.memory_mb <= 0) return fail(fmt::format("memory = {}: must be positive (MB)", in.memory_mb));
  if (in.memory_max_mb != 0 && in.memory_max_mb < in.memory_mb)
    return fail(fmt::format("memory_max = {} is below memory = {}", in.memory_max_mb, in.memory_mb));
  constexpr int64_t kMB = 1024 * 1024;
  Translation out;
  if (in.driver == "docker") {
    int64_t hard = std::max(in.memory_hard_limit_mb, in.memory_max_mb);
    DockerInput d{.memory = (hard > 0 ? hard : in.memory_mb) * kMB};
    if (hard > 0) d.reservation = in.memory_mb * kMB;
    d.swap = d.memory;  // createContainerConfig: MemorySwap = memory, no swap
    auto t = translate_docker(d, page_size);
    if (!t) return t;
    out = std::move(*t);
    for (auto& a : out.assignments) {
      a.source = "hashicorp/nomad drivers/docker/driver.go memoryLimits(), createContainerConfig(); " + a.source;
      if (a.file == "memory.max")
        a.rule = hard > 0 ? fmt::format("max(memory_hard_limit, memory_max) = {} MB", hard)
                          : fmt::format("memory = {} MB", in.memory_mb);
      if (a.file == "memory.low") a.rule = fmt::format("memory = {} MB as the reservation", in.memory_mb);
      if (a.file == "memory.swap.max") a.rule = "MemorySwap = Memory: no swap";
    }
  } else if (in.driver == "exec") {
    bool has_max = in.memory_max_mb > 0;
    OciMemory m{.limit = (has_max ? in.memory_max_mb : in.memory_mb) * kMB};
    if (has_max) m.reservation = in.memory_mb * kMB;
    if (auto r = runc_assignments(m, "task", page_size, out); !r) return std::unexpected(r.error());
    for (auto& a : out.assignments) {
      a.source = "hashicorp/nomad drivers/shared/executor/executor_linux.go configureCgroupMemory(); " + a.source;
      if (a.file == "memory.max")
        a.rule = has_max ? fmt::format("memory_max = {} MB", in.memory_max_mb)
                         : fmt::format("memory = {} MB", in.memory_mb);
    }
  } else {
    return fail(fmt::format("driver '{}': cgmem models the docker and exec drivers", in.driver));
  }
  out.manager = "nomad " + in.driver;
  out.notes.push_back("Nomad writes no memory.high: memory is a hard limit unless memory_max "
                      "(or the docker driver's memory_hard_limit) is set, and then it is memory.low");
  return out;
}

}  // namespace cgmem::managers
