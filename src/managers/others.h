// Incus, Slurm and Nomad: smaller managers, one function each.
//
// Incus (lxc/incus internal/server/instance/drivers/driver_lxc.go, the
// memory block of initLXC(); internal/server/cgroup/abstraction.go
// SetMemoryLimit() -> memory.max, SetMemorySoftLimit() -> memory.high):
//   limits.memory (bytes with kB/MB/GB/TB/PB/EB base 1000 or KiB/MiB/...
//   base 1024, or N% of the host's RAM as (RAM / 100) x N);
//   limits.memory.enforce=hard (default) -> memory.max;
//   limits.memory.enforce=soft -> memory.high, and no memory.max;
//   in hard mode memory.swap.max = 0, or limits.memory.swap if it is a size.
//
// Slurm (SchedMD/slurm src/plugins/task/cgroup/task_cgroup_memory.c
// _memcg_initialize(), mem_limit_in_bytes(), swap_limit_in_bytes();
// src/plugins/cgroup/v2/cgroup_v2.c cgroup_p_constrain_set()):
//   memory.max  = the job's memory x AllowedRAMSpace%, within
//                 [MinRAMSpace, MaxRAMPercent% of RealMemory];
//   memory.high = the job's memory (100%), at most memory.max;
//   memory.swap.max = (memory.max + job memory x AllowedSwapSpace%, at most
//                 MaxRAMPercent% + MaxSwapPercent% of RealMemory) - memory.max,
//                 only with ConstrainSwapSpace=yes;
//   nothing unless ConstrainRAMSpace or ConstrainSwapSpace is yes.
//
// Nomad (hashicorp/nomad), after structs.Resources validation (memory at
// least 10 MB; memory_max 0, -1 or not below memory):
//   docker driver (drivers/docker/driver.go memoryLimits(),
//   createContainerConfig()): memory_max = -1: no hard limit, memory is the
//   reservation (memory.low); else Memory = max(memory_hard_limit,
//   memory_max) when either is set, with memory as the reservation, else
//   Memory = memory; MemorySwap = Memory; then Docker and runc.
//   exec (drivers/shared/executor/executor_linux_cgo.go
//   configureCgroupMemory(), utils.go memoryLimits()): runc Memory =
//   memory_max (-1: max) or memory, MemoryReservation = memory when
//   memory_max is set.
//   raw_exec (executor_universal_linux.go configureCG2()): the same values
//   written straight to memory.max and memory.low.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "common/error.h"
#include "managers/assignment.h"
#include "managers/names.h"

namespace cgmem::managers {

// limits.memory.enforce.
enum class IncusEnforce { Hard, Soft };
inline constexpr NameTable<IncusEnforce, 2> kIncusEnforceNames = {
    {{"hard", IncusEnforce::Hard}, {"soft", IncusEnforce::Soft}}};

struct IncusInput {
  std::string limits_memory;       // "2GiB", "512MB", "25%"
  IncusEnforce enforce = IncusEnforce::Hard;
  std::string limits_memory_swap;  // limits.memory.swap: "", true/false, or a size
  std::optional<uint64_t> ram;     // the host's RAM, for percentages
};

Result<int64_t> parse_incus_size(std::string_view text);
Result<Translation> translate_incus(const IncusInput& input, uint64_t page_size);

struct SlurmConf {
  bool constrain_ram = false, constrain_swap = false;
  float allowed_ram = 100, allowed_swap = 0, max_ram_percent = 100, max_swap_percent = 100;
  uint64_t min_ram_mb = 30;
};

struct SlurmInput {
  uint64_t job_mb = 0;       // --mem in MB; 0: no limit (all of RealMemory)
  uint64_t real_memory_mb = 0;  // the node's RealMemory
  SlurmConf conf;
};

// sbatch's --mem: MB by default, K/M/G/T suffixes (base 1024; K rounds up).
Result<uint64_t> parse_slurm_mem(std::string_view text);
// cgroup.conf text, or a single "Key=Value" (keys are case-insensitive).
Result<void> apply_slurm_conf(std::string_view text, SlurmConf& conf);
Result<Translation> translate_slurm(const SlurmInput& input, uint64_t page_size);

// The task drivers cgmem models.
enum class NomadDriver { Docker, Exec, RawExec };
inline constexpr NameTable<NomadDriver, 3> kNomadDriverNames = {
    {{"docker", NomadDriver::Docker}, {"exec", NomadDriver::Exec}, {"raw_exec", NomadDriver::RawExec}}};

struct NomadInput {
  NomadDriver driver = NomadDriver::Docker;
  int64_t memory_mb = 300;             // resources.memory (Nomad's default 300)
  int64_t memory_max_mb = 0;           // resources.memory_max; -1: no hard limit
  int64_t memory_hard_limit_mb = 0;    // docker driver config memory_hard_limit
};

Result<Translation> translate_nomad(const NomadInput& input, uint64_t page_size);

}  // namespace cgmem::managers
