// The recommended limits as each manager's own settings: `cgmem translate`
// in reverse. Each manager's rule is the one src/managers implements, so
// translating a setting gives the recommended limits back (within the
// manager's unit: a page, or a MiB for Nomad and Slurm), which the tests
// check for every manager.
//
//   systemd     a drop-in: MemoryHigh= and MemoryMax= (bytes, as written)
//   kubernetes  requests.memory = the working set, limits.memory =
//               memory.max, and the kubelet's memoryThrottlingFactor whose
//               formula gives memory.high (1.27+: request + factor x
//               (limit - request); 1.22-1.26: limit x factor), with the
//               MemoryQoS gate (alpha before 1.37). The factor is one per
//               node: every Burstable pod there gets it.
//   docker      --memory; Docker has no flag for memory.high
//   podman      --memory and --cgroup-conf=memory.high=
//   compose     mem_limit; no memory.high either
//   nomad       memory (the reservation, the working set) and memory_max, in
//               MiB rounded up; no memory.high
//   slurm       --mem = memory.high in MiB rounded up, and cgroup.conf's
//               ConstrainRAMSpace=yes with AllowedRAMSpace = memory.max over
//               it, a percentage (one per cluster)
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "advise/recommend.h"

namespace cgmem::advise {

struct Setting {
  std::string manager;             // "systemd", "kubernetes", ...
  std::vector<std::string> lines;  // what to write, as the manager reads it
  nlohmann::json json;             // the same values, by key
  std::vector<std::string> caveats;
};

struct SettingsInput {
  uint64_t working_set = 0;  // the Kubernetes request and the Nomad reservation
  int kubernetes_minor = 36;
};

// The kubelet's memoryThrottlingFactor that gives `high` for this request
// and limit on 1.minor, rounded up at 1e-9 (so the kubelet's floor to a page
// lands on `high` or the page above); nullopt when none in (0, 1] does.
std::optional<double> throttling_factor(uint64_t request, uint64_t limit, uint64_t high, int minor);

std::vector<Setting> settings_for(const Advice& advice, const SettingsInput& in);

}  // namespace cgmem::advise
