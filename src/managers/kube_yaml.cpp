// Pods from YAML (yaml-cpp). A pod spec is found in a Pod, under
// spec.template of a workload, or under spec.jobTemplate.spec.template of a
// CronJob. Quantities are read as their text and parsed by parse_quantity.
#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "managers/input.h"
#include "managers/kubelet.h"
#include "managers/quantity.h"

namespace cgmem::managers {
namespace {

// The scalar at node[key] as text, or nullopt.
std::optional<std::string> scalar(const YAML::Node& node, const char* key) {
  if (!node.IsMap() || !node[key] || !node[key].IsScalar()) return std::nullopt;
  return node[key].Scalar();
}

Result<std::optional<int64_t>> quantity(const YAML::Node& list, const char* resource,
                                        const std::string& where, int scale) {
  auto text = scalar(list, resource);
  if (!text) return std::optional<int64_t>();
  auto v = scale == 0 ? parse_quantity(*text) : parse_quantity_scaled(*text, scale);
  if (!v) {
    v.error().what = where + ": " + v.error().what;
    return std::unexpected(v.error());
  }
  return std::optional<int64_t>(*v);
}

Result<void> read_resources(const YAML::Node& resources, const std::string& where,
                            std::optional<int64_t>& request, std::optional<int64_t>& limit,
                            std::optional<int64_t>* cpu_request, std::optional<int64_t>* cpu_limit) {
  if (!resources || !resources.IsMap()) return {};
  struct Field {
    const char* list;
    const char* resource;
    std::optional<int64_t>* out;
    int scale;
  };
  const Field fields[] = {{"requests", "memory", &request, 0}, {"limits", "memory", &limit, 0},
                          {"requests", "cpu", cpu_request, 3}, {"limits", "cpu", cpu_limit, 3}};
  for (const auto& f : fields) {
    if (!f.out || !resources[f.list]) continue;
    auto v = quantity(resources[f.list], f.resource,
                      fmt::format("{} resources.{}.{}", where, f.list, f.resource), f.scale);
    if (!v) return std::unexpected(v.error());
    *f.out = *v;
  }
  return {};
}

Result<void> read_containers(const YAML::Node& spec, const char* key, bool init, KubePod& pod) {
  const YAML::Node list = spec[key];
  if (!list) return {};
  if (!list.IsSequence()) return fail(fmt::format("spec.{} is not a list", key));
  for (const auto& item : list) {
    KubeContainer c{.init = init};
    c.name = scalar(item, "name").value_or(fmt::format("#{}", pod.containers.size() + 1));
    c.sidecar = init && scalar(item, "restartPolicy").value_or("") == "Always";
    auto r = read_resources(item["resources"], fmt::format("{} {}", key, c.name), c.request,
                            c.limit, &c.cpu_request, &c.cpu_limit);
    if (!r) return r;
    pod.containers.push_back(std::move(c));
  }
  return {};
}

// The pod spec inside a document, or an empty node.
YAML::Node pod_spec(const YAML::Node& doc) {
  if (!doc.IsMap() || !doc["spec"]) return {};
  const YAML::Node spec = doc["spec"];
  if (spec["containers"]) return spec;
  if (spec["template"] && spec["template"]["spec"]) return spec["template"]["spec"];
  if (spec["jobTemplate"] && spec["jobTemplate"]["spec"] && spec["jobTemplate"]["spec"]["template"])
    return spec["jobTemplate"]["spec"]["template"]["spec"];
  return {};
}

// The documents of a multi-document YAML stream, split at "---" lines.
// YAML::LoadAll is not used: yaml-cpp 0.7 keeps producing empty documents
// for a stream that starts with ',' and grows without bound.
std::vector<std::string> documents(std::string_view text) {
  std::vector<std::string> out(1);
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = std::min(text.find('\n', pos), text.size());
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    if (line == "---" || line.starts_with("--- ")) {
      out.emplace_back(line.substr(3));
      out.back() += '\n';
    } else {
      out.back().append(line).append("\n");
    }
  }
  return out;
}

}  // namespace

Result<KubePod> parse_pod_yaml(std::string_view text, std::string_view name) {
  if (auto r = check_yaml_shape(text, name); !r) return std::unexpected(r.error());
  try {
    for (const auto& part : documents(text)) {
      const YAML::Node doc = YAML::Load(part);
      YAML::Node spec = pod_spec(doc);
      if (!spec || !spec.IsMap()) continue;
      KubePod pod;
      if (doc["metadata"]) pod.name = scalar(doc["metadata"], "name").value_or("");
      if (auto r = read_containers(spec, "initContainers", true, pod); !r) return std::unexpected(r.error());
      if (auto r = read_containers(spec, "containers", false, pod); !r) return std::unexpected(r.error());
      if (pod.containers.empty()) return fail(fmt::format("{}: the pod spec has no containers", name));
      auto r = read_resources(spec["resources"], "pod", pod.request, pod.limit, nullptr, nullptr);
      if (!r) return std::unexpected(r.error());
      return pod;
    }
  } catch (const YAML::Exception& e) {
    return fail(fmt::format("{}: not valid YAML: {}", name, e.what()));
  }
  return fail(fmt::format("{}: no pod spec found", name), {},
              "give a Pod, a Deployment/StatefulSet/DaemonSet/ReplicaSet/Job or a CronJob");
}

}  // namespace cgmem::managers
