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

#include "common/error.h"
#include "managers/assignment.h"
#include "managers/names.h"

namespace cgmem::managers {

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
