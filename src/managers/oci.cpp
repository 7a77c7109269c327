#include "managers/oci.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/text.h"

namespace cgmem::managers {
namespace {

constexpr const char* kSetMemory = "opencontainers/runc libcontainer/cgroups/fs2/memory.go setMemory()";
constexpr const char* kConvert =
    "opencontainers/runc libcontainer/cgroups/utils.go ConvertMemorySwapToCgroupV2Value()";
constexpr const char* kUnified = "opencontainers/runc libcontainer/cgroups/fs2/fs2.go Set(), setUnified()";
constexpr const char* kCrunMemory = "containers/crun src/libcrun/cgroup-resources.c write_memory_resources()";
constexpr const char* kCrunSwap = "containers/crun src/libcrun/cgroup-resources.c write_memory_swap()";

Limit from_spec(int64_t v) { return v == -1 ? Limit::max() : Limit::of(static_cast<uint64_t>(v)); }

// A unified value as the kernel takes it: a byte count or "max".
Result<Limit> unified_value(const std::string& file, const std::string& value) {
  if (value == "max") return Limit::max();
  auto bytes = to_u64(value);
  if (!bytes) return fail(fmt::format("unified {}={}: not a byte count or max", file, value));
  return Limit::of(*bytes);
}

Assignment make(const std::string& scope, const char* file, Limit value, std::string rule,
                const char* source, uint64_t page_size) {
  Assignment a{.scope = scope, .file = file, .rule = std::move(rule), .source = source};
  with_value(a, value, page_size);
  return a;
}

// memory.swap.max from the spec's memory+swap total.
Result<void> swap_assignment(const OciMemory& m, const std::string& scope, uint64_t page_size,
                             Translation& out) {
  int64_t swap = m.swap.value_or(0), memory = m.limit.value_or(0);
  Assignment a{.scope = scope, .file = "memory.swap.max", .source = kConvert};
  if (memory == -1 && swap == 0) {
    a.value = Limit::max();
    a.rule = "memory unlimited and swap unset: swap max too (the cgroup v1 habit)";
  } else if (swap == -1) {
    a.value = Limit::max();
    a.rule = "swap -1: max";
  } else if (swap == 0) {
    a.set = false;
    a.rule = "swap unset: runc leaves memory.swap.max alone (kernel default max)";
  } else if (memory == 0) {
    return fail("runc: unable to set swap limit without memory limit");
  } else if (memory == -1) {
    a.value = Limit::of(static_cast<uint64_t>(swap));
    a.rule = fmt::format("memory unlimited: swap {} as is", swap);
  } else if (swap < memory) {
    return fail(fmt::format("runc: memory+swap limit {} should be >= memory limit {}", swap, memory));
  } else if (swap == memory) {
    a.value = Limit::of(0);
    a.rule = fmt::format("memory+swap = memory = {}: 0, no swap", memory);
  } else {
    a.value = Limit::of(static_cast<uint64_t>(swap - memory));
    a.rule = fmt::format("swap.max = memory+swap - memory = {} - {}", swap, memory);
  }
  if (a.set) with_value(a, a.value, page_size);
  add(out, std::move(a));
  return {};
}

// The unified map, written last: its keys replace what the fields wrote.
Result<void> unified_assignments(const OciMemory& m, const std::string& scope, uint64_t page_size,
                                 size_t first, Translation& out) {
  for (const auto& [file, text] : m.unified) {
    auto value = unified_value(file, text);
    if (!value) return std::unexpected(value.error());
    Assignment a{.scope = scope, .file = file, .rule = fmt::format("unified {}={}, written last", file, text),
                 .source = kUnified};
    if (file == "memory.oom.group") {
      // mm/memcontrol.c memory_oom_group_write(): only 0 or 1, else EINVAL.
      if (value->is_max() || value->bytes() > 1)
        return fail(fmt::format("unified memory.oom.group={}: the kernel takes only 0 or 1 (EINVAL), so the "
                                "runtime fails to create the container", text));
      a.flag = true, a.value = *value;
    } else {
      with_value(a, *value, page_size);
    }
    auto& list = out.assignments;
    for (size_t i = first; i < list.size(); ++i)
      if (list[i].scope == scope && list[i].file == file) {
        a.caveats.push_back(fmt::format("replaces the value from the spec's fields ({})",
                                        list[i].set ? format_limit(list[i].value) : "unset"));
        list.erase(list.begin() + static_cast<long>(i));
        break;
      }
    add(out, std::move(a));
  }
  return {};
}

void limit_and_reservation(const OciMemory& m, const std::string& scope, uint64_t page_size,
                           const char* source, Translation& out) {
  if (m.limit && *m.limit != 0)
    add(out, make(scope, "memory.max", from_spec(*m.limit),
                  fmt::format("limit {}", *m.limit == -1 ? "-1: max" : std::to_string(*m.limit)),
                  source, page_size));
  else
    add(out, {.scope = scope, .file = "memory.max", .set = false,
              .rule = "no limit: not written (kernel default max)", .source = source});
  if (m.reservation && *m.reservation != 0)
    add(out, make(scope, "memory.low", from_spec(*m.reservation),
                  fmt::format("reservation {} -> memory.low (reclaim protection, not a throttle)",
                              *m.reservation),
                  source, page_size));
}

// crun's write_memory_swap(): a swap of 0 is written as 0 and -1 as max;
// only a positive memory+swap is converted (and needs the limit).
Result<void> crun_swap(const OciMemory& m, const std::string& scope, uint64_t page_size,
                       std::optional<RuntimeVersion> version, Translation& out) {
  Assignment a{.scope = scope, .file = "memory.swap.max", .source = kCrunSwap};
  if (!m.swap) {
    a.set = false;
    a.rule = "swap not in the spec: crun leaves memory.swap.max alone (kernel default max)";
  } else if (*m.swap == -1) {
    a.value = Limit::max(), a.rule = "swap -1: max";
  } else if (*m.swap == 0 && (!version || *version >= kCrunSwapZeroAllowed)) {
    a.value = Limit::of(0), a.rule = "swap 0: crun writes 0 (no swap)";
  } else if (*m.swap == 0) {
    return fail(fmt::format("crun {}.{}.{}: {} (swap 0 means no swap from crun 1.8.6)", version->major, version->minor,
                            version->patch,
                            m.limit ? "cannot set memory+swap limit less than the memory limit"
                                    : "cannot set swap limit without the memory limit"));
  } else if (!m.limit) {
    return fail("crun: cannot set swap limit without the memory limit");
  } else if (*m.swap < *m.limit) {
    return fail("crun: cannot set memory+swap limit less than the memory limit");
  } else {
    with_value(a, Limit::of(static_cast<uint64_t>(*m.swap - *m.limit)), page_size);
    a.rule = fmt::format("swap.max = memory+swap - memory = {} - {}", *m.swap, *m.limit);
  }
  add(out, std::move(a));
  return {};
}

}  // namespace

Result<void> runc_assignments(const OciMemory& m, const std::string& scope, uint64_t page_size,
                              Translation& out) {
  size_t first = out.assignments.size();
  if (auto r = swap_assignment(m, scope, page_size, out); !r) return r;
  limit_and_reservation(m, scope, page_size, kSetMemory, out);
  return unified_assignments(m, scope, page_size, first, out);
}

Result<void> crun_assignments(const OciMemory& m, const std::string& scope, uint64_t page_size,
                              Translation& out, std::optional<RuntimeVersion> version) {
  if (m.disable_oom_killer) return fail("crun: cannot disable OOM killer with cgroupv2");
  size_t first = out.assignments.size();
  limit_and_reservation(m, scope, page_size, kCrunMemory, out);
  if (auto r = crun_swap(m, scope, page_size, version, out); !r) return r;
  return unified_assignments(m, scope, page_size, first, out);
}

Result<Translation> translate_runc(const OciMemory& memory, uint64_t page_size) {
  Translation out{.manager = "runc"};
  if (auto r = runc_assignments(memory, "container", page_size, out); !r)
    return std::unexpected(r.error());
  return out;
}

Result<Translation> translate_crun(const OciMemory& memory, uint64_t page_size,
                                   std::optional<RuntimeVersion> version) {
  Translation out{.manager = "crun"};
  if (auto r = crun_assignments(memory, "container", page_size, out, version); !r)
    return std::unexpected(r.error());
  if (version)
    out.notes.push_back(fmt::format("the rules of crun {}.{}.{}", version->major, version->minor, version->patch));
  return out;
}

Result<RuntimeVersion> parse_runtime_version(std::string_view text) {
  std::string_view rest = text;
  if (auto space = rest.find_last_of(' '); space != std::string_view::npos) rest.remove_prefix(space + 1);
  unsigned parts[3] = {0, 0, 0};
  size_t n = 0;
  while (n < 3) {
    size_t digits = 0;
    while (digits < rest.size() && digits < 6 && rest[digits] >= '0' && rest[digits] <= '9') ++digits;
    auto value = to_u64(rest.substr(0, digits));
    if (digits == 0 || !value) break;
    parts[n++] = static_cast<unsigned>(*value);
    rest.remove_prefix(digits);
    if (rest.empty() || rest[0] != '.') break;
    rest.remove_prefix(1);
  }
  // A packager's suffix ("1.1.5+ds1", "1.8.1-1") is not part of the release.
  if (!rest.empty() && (rest[0] == '+' || rest[0] == '-') && n >= 2) rest = {};
  if (n < 2 || !rest.empty())
    return fail(fmt::format("runtime version {:?}: not MAJOR.MINOR[.PATCH]", text), {}, "e.g. 1.8.1");
  return RuntimeVersion{parts[0], parts[1], parts[2]};
}

Result<std::optional<int64_t>> oci_number(std::string_view text, const char* flag) {
  if (text.empty()) return std::optional<int64_t>();
  auto v = to_i64(text);
  if (!v || *v < -1)
    return fail(fmt::format("{} {}: not a byte count or -1", flag, text), {},
                "the OCI spec's int64 bytes, e.g. 268435456");
  return std::optional<int64_t>(*v);
}

Result<OciMemory> parse_oci_spec(std::string_view json_text) {
  auto doc = nlohmann::json::parse(json_text, nullptr, false);
  if (doc.is_discarded()) return fail("OCI spec: not valid JSON");
  OciMemory m;
  const auto* linux_ = doc.is_object() && doc.contains("linux") ? &doc["linux"] : nullptr;
  const auto* res = linux_ && linux_->is_object() && linux_->contains("resources")
                        ? &(*linux_)["resources"] : nullptr;
  if (!res || !res->is_object()) return m;
  auto number = [&](const nlohmann::json& obj, const char* key) -> Result<std::optional<int64_t>> {
    if (!obj.contains(key)) return std::optional<int64_t>();
    if (!obj[key].is_number_integer())
      return fail(fmt::format("OCI spec: linux.resources.memory.{} is not an integer", key));
    return std::optional<int64_t>(obj[key].get<int64_t>());
  };
  if (res->contains("memory") && (*res)["memory"].is_object()) {
    const auto& mem = (*res)["memory"];
    for (auto [key, field] : {std::pair{"limit", &m.limit}, std::pair{"reservation", &m.reservation},
                              std::pair{"swap", &m.swap}}) {
      auto v = number(mem, key);
      if (!v) return std::unexpected(v.error());
      *field = *v;
    }
    if (mem.contains("disableOOMKiller") && mem["disableOOMKiller"].is_boolean())
      m.disable_oom_killer = mem["disableOOMKiller"].get<bool>();
  }
  if (res->contains("unified") && (*res)["unified"].is_object())
    for (const auto& [key, value] : (*res)["unified"].items()) {
      if (!value.is_string()) return fail(fmt::format("OCI spec: unified {} is not a string", key));
      if (key.starts_with("memory.")) m.unified.emplace_back(key, value.get<std::string>());
    }
  return m;
}

}  // namespace cgmem::managers
