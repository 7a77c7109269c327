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
#pragma once

#include <cstdint>
#include <string_view>

#include "common/error.h"
#include "managers/assignment.h"

namespace cgmem::managers {

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

}  // namespace cgmem::managers
