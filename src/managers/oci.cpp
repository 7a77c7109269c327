#include "managers/oci.h"

#include <charconv>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace cgmem::managers {
namespace {

constexpr const char* kSetMemory = "opencontainers/runc libcontainer/cgroups/fs2/memory.go setMemory()";
constexpr const char* kConvert =
    "opencontainers/runc libcontainer/cgroups/utils.go ConvertMemorySwapToCgroupV2Value()";
constexpr const char* kUnified = "opencontainers/runc libcontainer/cgroups/fs2/fs2.go Set(), setUnified()";

Limit from_spec(int64_t v) { return v == -1 ? Limit::max() : Limit::of(static_cast<uint64_t>(v)); }

// A unified value as the kernel takes it: a byte count or "max".
Result<Limit> unified_value(const std::string& file, const std::string& value) {
  if (value == "max") return Limit::max();
  uint64_t bytes = 0;
  auto [p, ec] = std::from_chars(value.data(), value.data() + value.size(), bytes);
  if (ec != std::errc() || p != value.data() + value.size() || value.empty())
    return fail(fmt::format("unified {}={}: not a byte count or max", file, value));
  return Limit::of(bytes);
}

Assignment make(const std::string& scope, const char* file, Limit value, std::string rule,
                const char* source, uint64_t page_size) {
  Assignment a{.scope = scope, .file = file, .value = page_rounded(value, page_size),
               .rule = std::move(rule), .source = source};
  if (a.value != value)
    a.caveats.push_back(fmt::format("written as {}; the kernel keeps whole pages", value.bytes()));
  return a;
}

// memory.swap.max from the spec's memory+swap total.
Result<void> swap_assignment(const OciMemory& m, const std::string& scope, Translation& out) {
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
  add(out, std::move(a));
  return {};
}

}  // namespace

Result<void> runc_assignments(const OciMemory& m, const std::string& scope, uint64_t page_size,
                              Translation& out) {
  size_t first = out.assignments.size();
  if (auto r = swap_assignment(m, scope, out); !r) return r;
  if (m.limit && *m.limit != 0)
    add(out, make(scope, "memory.max", from_spec(*m.limit),
                  fmt::format("limit {}", *m.limit == -1 ? "-1: max" : std::to_string(*m.limit)),
                  kSetMemory, page_size));
  else
    add(out, {.scope = scope, .file = "memory.max", .set = false,
              .rule = "no limit: not written (kernel default max)", .source = kSetMemory});
  if (m.reservation && *m.reservation != 0)
    add(out, make(scope, "memory.low", from_spec(*m.reservation),
                  fmt::format("reservation {} -> memory.low (reclaim protection, not a throttle)",
                              *m.reservation),
                  kSetMemory, page_size));
  for (const auto& [file, text] : m.unified) {
    auto value = unified_value(file, text);
    if (!value) return std::unexpected(value.error());
    Assignment a = make(scope, file.c_str(), *value, fmt::format("unified {}={}, written last", file, text),
                        kUnified, page_size);
    if (file == "memory.oom.group") a.flag = true, a.value = *value;
    // A unified key replaces what the fields above wrote.
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

Result<Translation> translate_runc(const OciMemory& memory, uint64_t page_size) {
  Translation out{.manager = "runc"};
  if (auto r = runc_assignments(memory, "container", page_size, out); !r)
    return std::unexpected(r.error());
  return out;
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
  }
  if (res->contains("unified") && (*res)["unified"].is_object())
    for (const auto& [key, value] : (*res)["unified"].items()) {
      if (!value.is_string()) return fail(fmt::format("OCI spec: unified {} is not a string", key));
      if (key.starts_with("memory.")) m.unified.emplace_back(key, value.get<std::string>());
    }
  return m;
}

}  // namespace cgmem::managers
