#include "managers/docker.h"

#include <fmt/format.h>

#include "managers/go_units.h"
#include "managers/oci.h"

namespace cgmem::managers {
namespace {

constexpr int64_t kMinMemory = 6291456;  // linuxMinMemory, 6 MB
constexpr const char* kVerify = "moby/moby daemon/daemon_unix.go verifyPlatformContainerResources()";
constexpr const char* kAdapt = "moby/moby daemon/daemon_unix.go adaptContainerSettings()";

// The daemon's checks, with its messages.
Result<void> verify(const DockerInput& in, std::vector<std::string>& notes) {
  int64_t memory = in.memory.value_or(0), swap = in.swap.value_or(0),
          reservation = in.reservation.value_or(0);
  if (memory != 0 && memory < kMinMemory) return fail("Minimum memory limit allowed is 6MB");
  if (memory > 0 && swap > 0 && swap < memory)
    return fail("Minimum memoryswap limit should be larger than memory limit, see usage");
  if (memory == 0 && swap > 0)
    return fail("You should always set the Memory limit when using Memoryswap limit, see usage");
  if (reservation > 0 && reservation < kMinMemory)
    return fail("Minimum memory reservation allowed is 6MB");
  if (memory > 0 && reservation > 0 && memory < reservation)
    return fail("Minimum memory limit can not be less than memory reservation limit, see usage");
  if (in.oom_kill_disable)
    notes.push_back("--oom-kill-disable: cgroup v2 has no such knob; the daemon warns \"Your kernel "
                    "does not support OomKillDisable. OomKillDisable discarded.\" (" +
                    std::string(kVerify) + ")");
  return {};
}

// Go's int64 would wrap 2 x memory; cgmem says so instead.
std::unexpected<Error> doubling_overflows(int64_t memory) {
  return fail(fmt::format("--memory {}: memory+swap = 2 x memory overflows int64", memory), {},
              "give --memory-swap, or a smaller --memory");
}

void reservation_caveat(Translation& out) {
  for (auto& a : out.assignments)
    if (a.file == "memory.low")
      a.caveats.push_back("--memory-reservation is reclaim protection on cgroup v2; it never "
                          "slows the container down");
}

// The daemon's checks and defaults, then runc.
Result<Translation> docker(const DockerInput& in, uint64_t page_size) {
  Translation out{.manager = "docker"};
  if (auto r = verify(in, out.notes); !r) return std::unexpected(r.error());
  OciMemory spec;
  if (in.memory && *in.memory != 0) spec.limit = in.memory;
  if (in.reservation && *in.reservation != 0) spec.reservation = in.reservation;
  spec.swap = in.swap;
  // adaptContainerSettings(): MemorySwap 0 (unset or 0) with a memory limit is doubled.
  bool doubled = in.memory.value_or(0) > 0 && in.swap.value_or(0) == 0;
  if (doubled && *in.memory > INT64_MAX / 2) return doubling_overflows(*in.memory);
  if (doubled) spec.swap = 2 * *in.memory;
  if (auto r = runc_assignments(spec, "container", page_size, out); !r) return std::unexpected(r.error());
  for (auto& a : out.assignments)
    if (a.file == "memory.swap.max" && doubled)
      a.rule = fmt::format("--memory-swap not set: memory+swap = 2 x memory = {}, so swap.max = "
                           "memory = {}",
                           2 * *in.memory, *in.memory),
      a.source = std::string(kAdapt) + "; " + a.source;
  reservation_caveat(out);
  out.notes.push_back("no docker flag writes memory.high: a container with only --memory is "
                      "killed at the limit, never throttled");
  out.notes.push_back("on a host without swap accounting the daemon sets memory+swap to -1 "
                      "(\"Memory limited without swap\") and memory.swap.max stays max");
  return out;
}

// podman's getMemoryLimits() and LimitToSwap(): memory+swap is doubled only
// when --memory-swap is not given; "-1" leaves swap out of the spec; any
// other value (0 included) goes to the spec as it is. Then crun.
Result<Translation> podman(const DockerInput& in, uint64_t page_size) {
  Translation out{.manager = "podman"};
  constexpr const char* kLimits = "containers/podman pkg/specgenutil/specgen.go getMemoryLimits(), LimitToSwap()";
  OciMemory spec{.unified = in.cgroup_conf, .disable_oom_killer = in.oom_kill_disable};
  if (in.memory.value_or(0) > 0) spec.limit = in.memory;
  if (in.reservation) spec.reservation = in.reservation;
  bool doubled = !in.swap && spec.limit;
  if (doubled && *in.memory > INT64_MAX / 2) return doubling_overflows(*in.memory);
  if (doubled) spec.swap = 2 * *in.memory;
  else if (in.swap && *in.swap != -1) spec.swap = in.swap;
  if (auto r = crun_assignments(spec, "container", page_size, out); !r) {
    if (in.oom_kill_disable)
      r.error().hint = "--oom-kill-disable has no cgroup v2 equivalent; podman passes it to the "
                       "runtime, which refuses to create the container";
    return std::unexpected(r.error());
  }
  for (auto& a : out.assignments) {
    if (a.file != "memory.swap.max") continue;
    if (doubled)
      a.rule = fmt::format("--memory-swap not given: memory+swap = 2 x memory = {}, so swap.max = "
                           "memory = {}", 2 * *in.memory, *in.memory);
    else if (in.swap && *in.swap == -1)
      a.rule = "--memory-swap -1: podman leaves swap out of the spec, so memory.swap.max stays max";
    a.source = std::string(kLimits) + "; " + a.source;
  }
  reservation_caveat(out);
  out.notes.push_back("podman's default runtime is crun (its rules are used here); containers made "
                      "through the libpod REST API get no swap default (containers/podman issue 13145)");
  out.notes.push_back("podman drops the swap limit with a warning (\"Memory limited without swap\") "
                      "when the cgroup has memory.max but no memory.swap.max "
                      "(pkg/specgen/generate/validate_linux.go)");
  return out;
}

}  // namespace

Result<int64_t> parse_docker_size(std::string_view text, bool allow_minus_one) {
  if (allow_minus_one && text == "-1") return -1;  // MemSwapBytes: "-1" is unlimited
  auto v = parse_go_units_ram(text);
  if (!v) v.error().hint = "go-units sizes: a number, then b, k, m, g, t or p (any case, base 1024), "
                           "optionally followed by b or ib, e.g. 256m, 256MB, 256MiB";
  return v;
}

Result<Translation> translate_docker(const DockerInput& input, uint64_t page_size) {
  if (!input.cgroup_conf.empty()) return fail("docker has no --cgroup-conf (that is podman's)");
  return docker(input, page_size);
}

Result<Translation> translate_podman(const DockerInput& input, uint64_t page_size) {
  for (const auto& [key, value] : input.cgroup_conf)
    if (!key.starts_with("memory."))
      return fail(fmt::format("--cgroup-conf {}={}: cgmem translates memory.* keys only", key, value));
  return podman(input, page_size);
}

}  // namespace cgmem::managers
