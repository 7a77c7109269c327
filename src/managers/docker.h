// Docker (and Podman, and Compose through Docker) memory flags to the
// OCI spec, then through runc to cgroup v2.
//
// The rules (moby/moby daemon/daemon_unix.go):
//   - verifyPlatformContainerResources(): --memory at least 6 MB (6291456),
//     --memory-reservation at least 6 MB and not above --memory,
//     --memory-swap not below --memory and only with --memory;
//     --oom-kill-disable is discarded where the kernel has no such knob
//     (cgroup v2 has none);
//   - adaptContainerSettings(): --memory without --memory-swap gets
//     memory+swap = 2 x memory, so memory.swap.max = memory;
//   - getMemoryResources(): Memory -> limit, MemoryReservation ->
//     reservation, MemorySwap -> swap; runc does the rest (oci.h).
// Sizes as the docker CLI reads them: docker/go-units RAMInBytes
// (go_units.h): 256m, 256MB and 256MiB are all 268435456; 256Mi is invalid.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/error.h"
#include "managers/assignment.h"

namespace cgmem::managers {

struct DockerInput {
  std::optional<int64_t> memory;       // --memory, bytes
  std::optional<int64_t> reservation;  // --memory-reservation
  std::optional<int64_t> swap;         // --memory-swap: memory+swap, -1 = unlimited
  bool oom_kill_disable = false;       // --oom-kill-disable
  std::vector<std::pair<std::string, std::string>> cgroup_conf;  // podman --cgroup-conf
};

// go-units RAMInBytes: "256m" -> 268435456; "-1" only where allow_minus_one.
Result<int64_t> parse_docker_size(std::string_view text, bool allow_minus_one = false);

Result<Translation> translate_docker(const DockerInput& input, uint64_t page_size);

// Podman: the same flags (containers/podman pkg/specgenutil/specgen.go
// getMemoryLimits(), LimitToSwap(): memory+swap 2 x memory only when
// --memory-swap is not given, "-1" leaves swap out, 0 stays 0; the Docker
// daemon's checks do not apply), plus --cgroup-conf KEY=VALUE into the
// unified map, then crun (oci.h crun_assignments()).
Result<Translation> translate_podman(const DockerInput& input, uint64_t page_size);

}  // namespace cgmem::managers
