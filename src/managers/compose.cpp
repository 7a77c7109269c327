#include "managers/compose.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

namespace cgmem::managers {
namespace {

// A UnitBytes value: an integer, or a go-units size string.
Result<std::optional<int64_t>> unit_bytes(const YAML::Node& map, const char* key,
                                          const std::string& where, bool allow_minus_one) {
  if (!map || !map.IsMap() || !map[key]) return std::optional<int64_t>();
  const YAML::Node v = map[key];
  if (!v.IsScalar()) return fail(fmt::format("{}: {} is not a size", where, key));
  auto bytes = parse_docker_size(v.Scalar(), allow_minus_one);
  if (!bytes) {
    bytes.error().what = fmt::format("{}: {}: {}", where, key, bytes.error().what);
    return std::unexpected(bytes.error());
  }
  return std::optional<int64_t>(*bytes);
}

Result<ComposeService> read_service(const std::string& name, const YAML::Node& s) {
  ComposeService out{.name = name};
  std::string where = "service " + name;
  auto take = [&](const YAML::Node& map, const char* key, bool minus_one,
                  std::optional<int64_t>& field) -> Result<void> {
    auto v = unit_bytes(map, key, where, minus_one);
    if (!v) return std::unexpected(v.error());
    if (*v) field = *v;
    return {};
  };
  DockerInput& in = out.input;
  for (auto r : {take(s, "mem_limit", false, in.memory), take(s, "memswap_limit", true, in.swap),
                 take(s, "mem_reservation", false, in.reservation)})
    if (!r) return std::unexpected(r.error());
  if (s["oom_kill_disable"] && s["oom_kill_disable"].IsScalar())
    in.oom_kill_disable = s["oom_kill_disable"].Scalar() == "true";
  YAML::Node res = s["deploy"] && s["deploy"]["resources"] ? s["deploy"]["resources"] : YAML::Node();
  if (res && res.IsMap()) {
    std::optional<int64_t> limit, reservation;
    if (auto r = take(res["limits"], "memory", false, limit); !r) return std::unexpected(r.error());
    if (auto r = take(res["reservations"], "memory", false, reservation); !r)
      return std::unexpected(r.error());
    if (limit && in.memory && *limit != *in.memory)
      out.notes.push_back(fmt::format("{}: deploy.resources.limits.memory ({}) replaces mem_limit ({})",
                                      where, *limit, *in.memory));
    if (limit) in.memory = limit;
    if (reservation) in.reservation = reservation;
  }
  return out;
}

}  // namespace

Result<std::vector<ComposeService>> parse_compose_yaml(std::string_view text, std::string_view name) {
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
