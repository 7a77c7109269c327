#include "managers/compose.h"

#include "common/text.h"
#include "managers/input.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

namespace cgmem::managers {
namespace {

// A UnitBytes value (compose-go types/bytes.go parseString()): a base-10
// int64 (negative ones included, e.g. memswap_limit: -1), else go-units
// RAMInBytes.
Result<std::optional<int64_t>> unit_bytes(const YAML::Node& map, const char* key,
                                          const std::string& where) {
  if (!map || !map.IsMap() || !map[key]) return std::optional<int64_t>();
  const YAML::Node v = map[key];
  if (!v.IsScalar()) return fail(fmt::format("{}: {} is not a size", where, key));
  const std::string& text = v.Scalar();
  if (auto n = to_i64(text)) return std::optional<int64_t>(*n);
  auto bytes = parse_docker_size(text);
  if (!bytes) {
    bytes.error().what = fmt::format("{}: {}: {}", where, key, bytes.error().what);
    return std::unexpected(bytes.error());
  }
  return std::optional<int64_t>(*bytes);
}

// compose-go loader/validate.go checkConsistency(): a key set both at the
// service level and under deploy.resources must agree; a deploy.resources
// limits (or reservations) block without memory counts as 0.
Result<void> same(const std::string& name, const char* key, const char* deploy_key,
                  std::optional<int64_t> service, const YAML::Node& block, std::optional<int64_t> deploy) {
  if (service.value_or(0) == 0 || !block) return {};
  if (deploy.value_or(0) == *service) return {};
  return fail(fmt::format("services.{}: can't set distinct values on '{}' and '{}': invalid compose project",
                          name, key, deploy_key),
              {}, "compose-go rejects the file; give one of the two, or the same value in both");
}

Result<ComposeService> read_service(const std::string& name, const YAML::Node& s) {
  ComposeService out{.name = name};
  std::string where = "service " + name;
  auto take = [&](const YAML::Node& map, const char* key, std::optional<int64_t>& field) -> Result<void> {
    auto v = unit_bytes(map, key, where);
    if (!v) return std::unexpected(v.error());
    if (*v) field = *v;
    return {};
  };
  DockerInput& in = out.input;
  for (auto r : {take(s, "mem_limit", in.memory), take(s, "memswap_limit", in.swap),
                 take(s, "mem_reservation", in.reservation)})
    if (!r) return std::unexpected(r.error());
  if (s["oom_kill_disable"] && s["oom_kill_disable"].IsScalar())
    in.oom_kill_disable = s["oom_kill_disable"].Scalar() == "true";
  YAML::Node res = s["deploy"] && s["deploy"].IsMap() && s["deploy"]["resources"] ? s["deploy"]["resources"]
                                                                                 : YAML::Node();
  if (res && res.IsMap()) {
    std::optional<int64_t> limit, reservation;
    const YAML::Node limits = res["limits"], reservations = res["reservations"];
    if (auto r = take(limits, "memory", limit); !r) return std::unexpected(r.error());
    if (auto r = take(reservations, "memory", reservation); !r) return std::unexpected(r.error());
    if (auto r = same(name, "mem_limit", "deploy.resources.limits.memory", in.memory, limits, limit); !r)
      return std::unexpected(r.error());
    if (auto r = same(name, "mem_reservation", "deploy.resources.reservations.memory", in.reservation,
                      reservations, reservation); !r)
      return std::unexpected(r.error());
    if (limit) in.memory = limit;
    if (reservation) in.reservation = reservation;
  }
  return out;
}

}  // namespace

Result<std::vector<ComposeService>> parse_compose_yaml(std::string_view text, std::string_view name) {
  if (auto r = check_yaml_shape(text, name); !r) return std::unexpected(r.error());
  try {
    YAML::Node doc = YAML::Load(std::string(text));
    if (!doc.IsMap() || !doc["services"] || !doc["services"].IsMap())
      return fail(fmt::format("{}: no services", name), {}, "a compose file has a services: map");
    std::vector<ComposeService> out;
    for (const auto& item : doc["services"]) {
      auto s = read_service(item.first.Scalar(), item.second);
      if (!s) return std::unexpected(s.error());
      out.push_back(std::move(*s));
    }
    return out;
  } catch (const YAML::Exception& e) {
    return fail(fmt::format("{}: not valid YAML: {}", name, e.what()));
  }
}

Result<Translation> translate_compose(const std::vector<ComposeService>& services,
                                      std::string_view only, uint64_t page_size) {
  Translation out{.manager = "compose"};
  for (const auto& s : services) {
    if (!only.empty() && s.name != only) continue;
    auto t = translate_docker(s.input, page_size);
    if (!t) {
      t.error().what = fmt::format("service {}: {}", s.name, t.error().what);
      return std::unexpected(t.error());
    }
    for (auto& a : t->assignments) {
      a.scope = "service " + s.name;
      a.source = "docker/compose pkg/compose/create.go getDeployResources(); " + a.source;
      out.assignments.push_back(std::move(a));
    }
    out.notes.insert(out.notes.end(), s.notes.begin(), s.notes.end());
    for (auto& n : t->notes)
      if (std::find(out.notes.begin(), out.notes.end(), n) == out.notes.end()) out.notes.push_back(n);
  }
  if (out.assignments.empty())
    return fail(only.empty() ? std::string("the compose file has no services")
                             : fmt::format("no service named '{}'", only));
  return out;
}

}  // namespace cgmem::managers
