#include "lab/run_options.h"

#include <fmt/format.h>

#include "cgroup/cgroup.h"
#include "run_format/run_format.h"

namespace cgmem::lab {
namespace {

Result<void> check_limit(const char* file, const std::optional<Limit>& limit, bool force,
                         uint64_t ram) {
  if (!limit || limit->is_max() || force) return {};
  if (limit->bytes() < kMinLimit)
    return fail(fmt::format("{} {} is below 1MiB", file, format_bytes(limit->bytes())), {},
                "a cgroup that small cannot start a process; pass --force to do it anyway");
  if (ram != 0 && limit->bytes() > ram)
    return fail(fmt::format("{} {} is above this machine's RAM ({})", file,
                            format_bytes(limit->bytes()), format_bytes(ram)),
                {}, "such a limit never acts; pass --force to do it anyway");
  return {};
}

Result<void> check_cpu(const char* flag, const std::optional<unsigned>& cpu, unsigned cpus) {
  if (cpu && *cpu >= cpus)
    return fail(fmt::format("{} {}: this machine has CPUs 0 to {}", flag, *cpu, cpus - 1));
  return {};
}

// N neighbours at INTERVAL, staggered, charge the CPU every INTERVAL / N.
Result<void> check_neighbours(const RunOptions& o) {
  if (!o.neighbour_ns) return {};
  if (*o.neighbour_ns < kMinNeighbourGap) return fail("--neighbour is below 1ms");
  if (o.neighbours < 1 || o.neighbours > kMaxNeighbours)
    return fail(fmt::format("--neighbours: {} is out of range (1 to {})", o.neighbours, kMaxNeighbours));
  if (*o.neighbour_ns / o.neighbours >= kMinNeighbourGap) return {};
  auto ms = [](uint64_t ns) { return fmt::format("{:g}ms", static_cast<double>(ns) / 1e6); };
  return fail(fmt::format("--neighbours {} at --neighbour {} charge the workload's CPU every {}, more often than "
                          "once per {}",
                          o.neighbours, ms(*o.neighbour_ns), ms(*o.neighbour_ns / o.neighbours), ms(kMinNeighbourGap)),
              {},
              fmt::format("together they would take the CPU from the workload; give --neighbour {} or more, or "
                          "fewer --neighbours",
                          ms(kMinNeighbourGap * o.neighbours)));
}

Result<void> validate_command(const RunOptions& o) {
  if (o.command.front().empty()) return fail("--command: the program's name is empty");
  if (o.load.empty() && (o.ready_tcp || o.ready_delay_ns))
    return fail("--ready-tcp/--ready-delay without a load generator", {},
                "add `--load -- CMD ARGS` after the program's arguments");
  if (o.ready_tcp && *o.ready_tcp == 0) return fail("--ready-tcp 0 is not a port");
  if (o.ready_tcp && o.ready_delay_ns) return fail("give --ready-tcp or --ready-delay, not both");
  if (o.ready_delay_ns && *o.ready_delay_ns >= o.cap_ns)
    return fail("--ready-delay is not shorter than --cap", {}, "the load would never start");
  return {};
}

}  // namespace

Result<void> validate(const RunOptions& o, const Machine& m) {
  if (auto named = cgroup::Cgroup::check_name(o.name); !named)
    return fail(fmt::format("--name: {}", named.error().message()));
  if (auto ok = check_limit("memory.max", o.max, o.force, m.mem_total_bytes); !ok) return ok;
  if (auto ok = check_limit("memory.high", o.high, o.force, m.mem_total_bytes); !ok) return ok;
  if (auto ok = check_cpu("--cpu", o.cpu, m.cpus); !ok) return ok;
  if (auto ok = check_cpu("--sampler-cpu", o.sampler_cpu, m.cpus); !ok) return ok;
  if (o.interval_ns < 10'000'000)
    return fail("--interval is below 10ms", {}, "the sampler would cost more than it shows");
  if (o.cap_ns < o.interval_ns) return fail("--cap is shorter than one --interval");
  if (auto ok = check_neighbours(o); !ok) return ok;
  if (!o.command.empty()) return validate_command(o);
  if (o.workload_args.empty())
    return fail("no workload options after '--'", {}, "e.g. cgmem run --name over --max 32M -- --target 40M");
  if (!o.load.empty() || o.ready_tcp || o.ready_delay_ns)
    return fail("--load, --ready-tcp and --ready-delay go with --command", {},
                "e.g. cgmem run --name r --command --ready-tcp 6379 -- redis-server --load -- redis-benchmark");
  return {};
}

void split_command_words(const std::vector<std::string>& words, RunOptions& o) {
  auto at = words.begin();
  while (at != words.end() && !(*at == "--load" && at + 1 != words.end() && *(at + 1) == "--")) ++at;
  o.command.assign(words.begin(), at);
  if (at != words.end()) o.load.assign(at + 2, words.end());
}

unsigned default_sampler_cpu(unsigned workload_cpu, unsigned cpus) {
  return cpus > 1 ? (workload_cpu + 1) % cpus : workload_cpu;
}

nlohmann::json spec_json(const RunOptions& o, unsigned cpu, unsigned sampler_cpu) {
  namespace key = run_format::spec_key;
  return {{key::kCpu, cpu},
          {key::kSamplerCpu, sampler_cpu},
          {key::kIntervalMs, static_cast<double>(o.interval_ns) / 1e6},
          {key::kCapS, static_cast<double>(o.cap_ns) / 1e9},
          {key::kNeighbourIntervalMs, o.neighbour_ns
                                          ? nlohmann::json(static_cast<double>(*o.neighbour_ns) / 1e6)
                                          : nlohmann::json(nullptr)},
          {key::kNeighbours, o.neighbour_ns ? o.neighbours : 0u},
          {key::kTrace, o.trace},
          {key::kWorkloadArgs, o.workload_args},
          {key::kCommand, o.command.empty() ? nlohmann::json(nullptr) : nlohmann::json(o.command)},
          {key::kLoad, o.load.empty() ? nlohmann::json(nullptr) : nlohmann::json(o.load)},
          {key::kReadyTcp, o.ready_tcp ? nlohmann::json(*o.ready_tcp) : nlohmann::json(nullptr)},
          {key::kReadyDelayMs, o.ready_delay_ns ? nlohmann::json(static_cast<double>(*o.ready_delay_ns) / 1e6)
                                                : nlohmann::json(nullptr)},
          // a command writes no ops.jsonl; the report reads the samples only
          {key::kOpLines, o.command.empty()}};
}

}  // namespace cgmem::lab
