#include <fmt/format.h>

#include "managers/docker.h"
#include "managers/oci.h"
#include "managers/nomad.h"

namespace cgmem::managers {
namespace {

constexpr int64_t kNoLimit = -1;  // structs.MemoryNoLimit: memory_max = -1
constexpr const char* kDocker = "hashicorp/nomad drivers/docker/driver.go memoryLimits(), createContainerConfig()";
constexpr const char* kRawExec =
    "hashicorp/nomad drivers/shared/executor/executor_universal_linux.go configureCG2(); "
    "drivers/shared/executor/utils.go memoryLimits()";
constexpr const char* kExec =
    "hashicorp/nomad drivers/shared/executor/executor_linux_cgo.go configureCgroupMemory(); "
    "drivers/shared/executor/utils.go memoryLimits()";

// structs.Resources Validate() and MeetsMinResources(), and mbToBytes()
// without the wrap Go's int64 multiplication would give.
Result<void> validate(const NomadInput& in) {
  if (in.memory_mb < 10) return fail(fmt::format("minimum MemoryMB value is 10; got {}", in.memory_mb));
  if (in.memory_max_mb != 0 && in.memory_max_mb != kNoLimit && in.memory_max_mb < in.memory_mb)
    return fail(fmt::format("MemoryMaxMB value ({}) should be larger than MemoryMB value ({})", in.memory_max_mb,
                            in.memory_mb));
  for (int64_t mb : {in.memory_mb, in.memory_max_mb, in.memory_hard_limit_mb})
    if (mb > INT64_MAX / (1024 * 1024))
      return fail(fmt::format("{} MB: the byte count overflows Nomad's int64 (mbToBytes)", mb), {},
                  "give a size below 8 EiB");
  if (in.memory_hard_limit_mb < 0)
    return fail(fmt::format("memory_hard_limit = {}: must not be negative", in.memory_hard_limit_mb));
  return {};
}

int64_t mb_to_bytes(int64_t mb) { return mb * 1024 * 1024; }

Result<Translation> docker_driver(const NomadInput& in, uint64_t page_size) {
  // memoryLimits(): memory_max -1 -> no hard limit, memory is the
  // reservation; else max(memory_hard_limit, memory_max) if set, with memory
  // as the reservation; else memory as the hard limit.
  int64_t hard = std::max(in.memory_hard_limit_mb, in.memory_max_mb == kNoLimit ? 0 : in.memory_max_mb);
  int64_t memory = 0, reserve = 0;
  std::string max_rule;
  if (in.memory_max_mb == kNoLimit) {
    reserve = mb_to_bytes(in.memory_mb);
    max_rule = "memory_max = -1: no hard limit (memory_hard_limit ignored)";
  } else if (hard == 0) {
    memory = mb_to_bytes(in.memory_mb);
    max_rule = fmt::format("memory = {} MB", in.memory_mb);
  } else {
    memory = mb_to_bytes(hard), reserve = mb_to_bytes(in.memory_mb);
    max_rule = fmt::format("max(memory_hard_limit, memory_max) = {} MB", hard);
  }
  if (memory > 0 && reserve > memory)
    return fail(fmt::format("task memory requirements exceed driver hard limit of {} MB", in.memory_hard_limit_mb));
  DockerInput d{.memory = memory, .swap = memory};  // createContainerConfig: MemorySwap = Memory
  if (reserve > 0) d.reservation = reserve;
  auto t = translate_docker(d, page_size);
  if (!t) return t;
  for (auto& a : t->assignments) {
    a.source = std::string(kDocker) + "; " + a.source;
    if (a.file == "memory.max") a.rule = max_rule + (a.set ? "" : ": not written (max)");
    if (a.file == "memory.low") a.rule = fmt::format("memory = {} MB as the reservation", in.memory_mb);
    if (a.file == "memory.swap.max")
      a.rule = a.set ? "MemorySwap = Memory: no swap" : "MemorySwap = Memory = 0: not written (max)";
  }
  return t;
}

// exec: the libcontainer executor hands memoryLimits() to runc as Memory
// (-1 for memory_max = -1) and MemoryReservation; no MemorySwap.
Result<Translation> exec_driver(const NomadInput& in, uint64_t page_size) {
  Translation out;
  OciMemory m;
  if (in.memory_max_mb == kNoLimit) m.limit = -1, m.reservation = mb_to_bytes(in.memory_mb);
  else if (in.memory_max_mb > 0) m.limit = mb_to_bytes(in.memory_max_mb), m.reservation = mb_to_bytes(in.memory_mb);
  else m.limit = mb_to_bytes(in.memory_mb);
  if (auto r = runc_assignments(m, "task", page_size, out); !r) return std::unexpected(r.error());
  for (auto& a : out.assignments) {
    a.source = std::string(kExec) + "; " + a.source;
    if (a.file == "memory.max")
      a.rule = in.memory_max_mb == kNoLimit ? "memory_max = -1: runc Memory -1, max"
               : in.memory_max_mb > 0       ? fmt::format("memory_max = {} MB", in.memory_max_mb)
                                            : fmt::format("memory = {} MB", in.memory_mb);
    if (a.file == "memory.low") a.rule = fmt::format("memory = {} MB as the reservation", in.memory_mb);
  }
  return out;
}

// raw_exec: the universal executor writes the files itself on cgroup v2.
Translation raw_exec_driver(const NomadInput& in, uint64_t page_size) {
  Translation out;
  Assignment max{.scope = "task", .file = "memory.max", .source = kRawExec};
  if (in.memory_max_mb == kNoLimit) {
    max.value = Limit::max(), max.rule = "memory_max = -1: memory.max max";
  } else {
    int64_t mb = in.memory_max_mb > 0 ? in.memory_max_mb : in.memory_mb;
    with_value(max, Limit::of(static_cast<uint64_t>(mb_to_bytes(mb))), page_size);
    max.rule = in.memory_max_mb > 0 ? fmt::format("memory_max = {} MB", mb) : fmt::format("memory = {} MB", mb);
  }
  add(out, std::move(max));
  if (in.memory_max_mb != 0) {
    Assignment low{.scope = "task", .file = "memory.low",
                   .rule = fmt::format("memory = {} MB as the reservation", in.memory_mb), .source = kRawExec};
    with_value(low, Limit::of(static_cast<uint64_t>(mb_to_bytes(in.memory_mb))), page_size);
    add(out, std::move(low));
  }
  add(out, {.scope = "task", .file = "memory.swap.max", .set = false,
            .rule = "the executor does not write it (max); swappiness is set to 0 where it can be",
            .source = kRawExec});
  return out;
}

}  // namespace

Result<Translation> translate_nomad(const NomadInput& in, uint64_t page_size) {
  if (auto r = validate(in); !r) return std::unexpected(r.error());
  Translation out;
  switch (in.driver) {
    case NomadDriver::Docker: {
      auto t = docker_driver(in, page_size);
      if (!t) return t;
      out = std::move(*t);
      break;
    }
    case NomadDriver::Exec: {
      auto t = exec_driver(in, page_size);
      if (!t) return t;
      out = std::move(*t);
      break;
    }
    case NomadDriver::RawExec: out = raw_exec_driver(in, page_size); break;
  }
  out.manager = fmt::format("nomad {}", name_in(kNomadDriverNames, in.driver));
  out.notes.push_back("Nomad writes no memory.high: memory is a hard limit unless memory_max "
                      "(or the docker driver's memory_hard_limit) is set, and then it is memory.low");
  if (in.memory_max_mb != 0)
    out.notes.push_back("memory_max needs memory oversubscription enabled in the scheduler configuration; "
                        "without it the job is accepted with the warning \"Memory oversubscription is not "
                        "enabled; Task ... memory_max value will be ignored\" (nomad/job_endpoint_hooks.go "
                        "memoryOversubscriptionValidate) and memory is the hard limit");
  return out;
}

}  // namespace cgmem::managers
