// Docker Compose: each service's memory keys, through the Docker daemon and
// runc (docker.h).
//
// The rules (docker/compose pkg/compose/create.go getDeployResources(),
// setLimits(), setReservations(); sizes read by compose-go as UnitBytes,
// an integer of bytes or a docker/go-units size):
//   mem_limit -> Memory, memswap_limit -> MemorySwap (-1 unlimited),
//   mem_reservation -> MemoryReservation, oom_kill_disable;
//   deploy.resources.limits.memory replaces Memory and
//   deploy.resources.reservations.memory replaces MemoryReservation.
// compose-go (loader/validate.go checkConsistency()) rejects a file where
// mem_limit and deploy.resources.limits.memory (or mem_reservation and
// deploy.resources.reservations.memory) differ.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/error.h"
#include "managers/assignment.h"
#include "managers/docker.h"

namespace cgmem::managers {

struct ComposeService {
  std::string name;
  DockerInput input;
  std::vector<std::string> notes;
};

// Every service in a compose file, in file order.
Result<std::vector<ComposeService>> parse_compose_yaml(std::string_view text, std::string_view name);

// The services' files, scoped "service NAME"; only `only` when not empty.
Result<Translation> translate_compose(const std::vector<ComposeService>& services,
                                      std::string_view only, uint64_t page_size);

}  // namespace cgmem::managers
