#include "managers/docker.h"

#include <cctype>
#include <charconv>
#include <fmt/format.h>

#include "managers/oci.h"

namespace cgmem::managers {
namespace {

constexpr int64_t kMinMemory = 6291456;  // linuxMinMemory, 6 MB
constexpr const char* kVerify = "moby/moby daemon/daemon_unix.go verifyPlatformContainerResources()";
constexpr const char* kAdapt = "moby/moby daemon/daemon_unix.go adaptContainerSettings()";

std::unexpected<Error> bad_size(std::string_view text) {
  return fail(fmt::format("invalid size: '{}'", text), {},
              "a number with an optional b, k, m, g, t or p (base 1024), e.g. 256m");
}

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

Result<Translation> translate(const DockerInput& in, uint64_t page_size, bool podman) {
  Translation out{.manager = podman ? "podman" : "docker"};
  const char* swap_default_source =
      podman ? "containers/podman pkg/specgenutil/specgen.go getMemoryLimits() (memory+swap defaults to 2 x memory)" : kAdapt;
  if (!podman) {
    if (auto r = verify(in, out.notes); !r) return std::unexpected(r.error());
  } else if (in.oom_kill_disable) {
    out.notes.push_back("--oom-kill-disable: cgroup v2 has no such knob; it has no effect");
  }
  OciMemory spec{.unified = in.cgroup_conf};
  if (in.memory && *in.memory != 0) spec.limit = in.memory;
  if (in.reservation && *in.reservation != 0) spec.reservation = in.reservation;
  spec.swap = in.swap;
  bool doubled = in.memory.value_or(0) > 0 && in.swap.value_or(0) == 0;
  if (doubled) spec.swap = 2 * *in.memory;
  if (auto r = runc_assignments(spec, "container", page_size, out); !r)
    return std::unexpected(r.error());
  for (auto& a : out.assignments) {
    if (a.file == "memory.swap.max" && doubled)
      a.rule = fmt::format("--memory-swap not set: memory+swap = 2 x memory = {}, so swap.max = "
                           "memory = {}",
                           2 * *in.memory, *in.memory),
      a.source = std::string(swap_default_source) + "; " + a.source;
    if (a.file == "memory.low")
      a.caveats.push_back("--memory-reservation is reclaim protection on cgroup v2; it never "
                          "slows the container down");
  }
  if (podman)
    out.notes.push_back("podman's default runtime is crun, which converts memory+swap the same "
                        "way as runc; containers made through the libpod REST API get no swap default "
                        "(containers/podman issue 13145)");
  else
    out.notes.push_back("no docker flag writes memory.high: a container with only --memory is "
                        "killed at the limit, never throttled");
  out.notes.push_back("on a host without swap accounting the daemon sets memory+swap to -1 "
                      "(\"Memory limited without swap\") and memory.swap.max stays max");
  return out;
}

}  // namespace

Result<int64_t> parse_docker_size(std::string_view text, bool allow_minus_one) {
  if (allow_minus_one && text == "-1") return -1;
  // ^(\d+(\.\d+)*) ?([kKmMgGtTpP])?[iI]?[bB]?$, then the number as a float.
  size_t i = 0;
  while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.')) ++i;
  std::string_view number = text.substr(0, i), unit = text.substr(i);
  if (number.empty() || !std::isdigit(static_cast<unsigned char>(number[0]))) return bad_size(text);
  double value = 0;
  auto [p, ec] = std::from_chars(number.data(), number.data() + number.size(), value);
  if (ec != std::errc() || p != number.data() + number.size() || number.back() == '.')
    return bad_size(text);
  if (!unit.empty() && unit[0] == ' ') unit.remove_prefix(1);
  static constexpr std::string_view kLetters = "kmgtp";
  double multiply = 1;
  if (!unit.empty()) {
    auto at = kLetters.find(static_cast<char>(std::tolower(static_cast<unsigned char>(unit[0]))));
    if (at != std::string_view::npos) multiply = static_cast<double>(1ULL << (10 * (at + 1))), unit.remove_prefix(1);
  }
  if (!unit.empty() && (unit[0] == 'i' || unit[0] == 'I')) unit.remove_prefix(1);
  if (!unit.empty() && (unit[0] == 'b' || unit[0] == 'B')) unit.remove_prefix(1);
  if (!unit.empty()) return bad_size(text);
  double bytes = value * multiply;
  if (bytes >= 9.2e18) return bad_size(text);
  return static_cast<int64_t>(bytes);
}

Result<Translation> translate_docker(const DockerInput& input, uint64_t page_size) {
  if (!input.cgroup_conf.empty()) return fail("docker has no --cgroup-conf (that is podman's)");
  return translate(input, page_size, false);
}

Result<Translation> translate_podman(const DockerInput& input, uint64_t page_size) {
  for (const auto& [key, value] : input.cgroup_conf)
    if (!key.starts_with("memory."))
      return fail(fmt::format("--cgroup-conf {}={}: cgmem translates memory.* keys only", key, value));
  return translate(input, page_size, true);
}

}  // namespace cgmem::managers
