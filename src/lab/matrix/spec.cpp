#include "lab/matrix/spec.h"

#include <fmt/format.h>

#include <charconv>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

// Parse errors as values (toml::parse_result), never exceptions.
#define TOML_EXCEPTIONS 0
#include <toml++/toml.h>

#include "common/size.h"

namespace cgmem::lab {

namespace {

namespace fs = std::filesystem;

// spec key -> `cgmem run` flag, and what the value is.
enum class Kind { size, limit, cpu, duration_s, duration_ms, text };
struct FlagKey {
  const char* key;
  const char* flag;
  Kind kind;
};
constexpr FlagKey kFlags[] = {
    {"max", "--max", Kind::limit},          {"high", "--high", Kind::limit},
    {"low", "--low", Kind::limit},          {"min", "--min", Kind::limit},
    {"swap_max", "--swap-max", Kind::limit}, {"io_rbps", "--io-rbps", Kind::size},
    {"io_wbps", "--io-wbps", Kind::size},   {"cpu", "--cpu", Kind::cpu},
    {"sampler_cpu", "--sampler-cpu", Kind::cpu}, {"interval", "--interval", Kind::duration_ms},
    {"cap", "--cap", Kind::duration_s},     {"neighbour", "--neighbour", Kind::duration_ms},
    {"parent", "--parent", Kind::text},     {"high_throttle", "--high-throttle", Kind::cpu},
};

const FlagKey* find_flag(std::string_view key) {
  for (const auto& f : kFlags)
    if (key == f.key) return &f;
  return nullptr;
}

std::unexpected<Error> spec_error(const std::string& path, const std::string& what) {
  return fail("matrix spec: " + what, path, "see docs/matrix.md for the format");
}

// A value as text: strings as they are, integers in decimal.
std::optional<std::string> text_of(const toml::node& node) {
  if (auto s = node.value<std::string>()) return *s;
  if (node.is_integer()) return std::to_string(*node.value<int64_t>());
  return std::nullopt;
}

std::string toml_type_name(toml::node_type type) {
  std::ostringstream out;
  out << type;
  return out.str();
}

bool valid(Kind kind, const std::string& value) {
  switch (kind) {
    case Kind::limit: return parse_limit(value, {.allow_max = true, .percent_of = 100}).has_value();
    case Kind::size: return parse_bytes(value).has_value();
    case Kind::cpu: {
      unsigned cpu = 0;
      auto [p, ec] = std::from_chars(value.data(), value.data() + value.size(), cpu);
      return ec == std::errc() && p == value.data() + value.size();
    }
    case Kind::duration_s: return parse_seconds(value, 1).has_value();
    case Kind::duration_ms: return parse_seconds(value, 1e-3).has_value();
    case Kind::text: return !value.empty();
  }
  return false;
}

// Reads the run options of one table into flags; `allowed` lists the other
// keys the table may have. `where` names the table in messages.
Result<void> read_flags(const toml::table& t, const std::set<std::string>& allowed, const std::string& where,
                        const std::string& path, RunFlags& flags) {
  for (const auto& [k, node] : t) {
    std::string key(k.str());
    if (allowed.count(key)) continue;
    const FlagKey* f = find_flag(key);
    if (!f) return spec_error(path, fmt::format("unknown key '{}' in {}", key, where));
    auto value = text_of(node);
    if (value && value->empty()) {  // "" unsets what defaults or the config set
      flags[key] = "";
      continue;
    }
    if (!value || !valid(f->kind, *value))
      return spec_error(path, fmt::format("{}.{}: '{}' is not a valid value", where, key,
                                          value.value_or(toml_type_name(node.type()))));
    flags[key] = *value;
  }
  return {};
}

Result<std::vector<std::string>> strings(const toml::node* node, const std::string& where, const std::string& path) {
  std::vector<std::string> out;
  if (!node) return out;
  const toml::array* array = node->as_array();
  if (!array) return spec_error(path, where + " must be an array of strings");
  for (const auto& item : *array) {
    auto s = item.value<std::string>();
    if (!s) return spec_error(path, where + " must be an array of strings");
    out.push_back(*s);
  }
  return out;
}

Result<void> read_configs(const toml::table& root, const std::string& path, MatrixSpec& spec) {
  const toml::array* configs = root["configs"].as_array();
  if (!configs || configs->empty()) return spec_error(path, "no [[configs]]");
  for (size_t i = 0; i < configs->size(); ++i) {
    const toml::table* t = (*configs)[i].as_table();
    std::string where = fmt::format("configs[{}]", i);
    if (!t) return spec_error(path, where + " is not a table");
    ConfigSpec c;
    auto name = (*t)["name"].value<std::string>();
    if (!name || name->empty()) return spec_error(path, where + " has no name");
    c.name = *name;
    if (auto r = read_flags(*t, {"name"}, "config " + c.name, path, c.flags); !r) return std::unexpected(r.error());
    for (const auto& other : spec.configs)
      if (other.name == c.name) return spec_error(path, "two configs are named " + c.name);
    spec.configs.push_back(std::move(c));
  }
  return {};
}

Result<void> read_workloads(const toml::table& root, const std::string& path, MatrixSpec& spec) {
  const toml::array* workloads = root["workloads"].as_array();
  if (!workloads || workloads->empty()) return spec_error(path, "no [[workloads]]");
  for (size_t i = 0; i < workloads->size(); ++i) {
    const toml::table* t = (*workloads)[i].as_table();
    std::string where = fmt::format("workloads[{}]", i);
    if (!t) return spec_error(path, where + " is not a table");
    WorkloadSpec w;
    auto name = (*t)["name"].value<std::string>();
    if (!name || name->empty()) return spec_error(path, where + " has no name");
    w.name = *name;
    auto args = strings(t->get("args"), "workload " + w.name + ".args", path);
    if (!args) return std::unexpected(args.error());
    w.args = *args;
    auto configs = strings(t->get("configs"), "workload " + w.name + ".configs", path);
    if (!configs) return std::unexpected(configs.error());
    w.configs = *configs;
    for (const auto& c : w.configs) {
      bool known = false;
      for (const auto& config : spec.configs) known |= config.name == c;
      if (!known) return spec_error(path, fmt::format("workload {} names config '{}', which is not defined", w.name, c));
    }
    if (auto reps = (*t)["reps"].value<int64_t>()) w.reps = static_cast<int>(*reps);
    if (auto r = read_flags(*t, {"name", "args", "configs", "reps"}, "workload " + w.name, path, w.flags); !r)
      return std::unexpected(r.error());
    spec.workloads.push_back(std::move(w));
  }
  return {};
}

Result<void> read_top(const toml::table& root, const std::string& path, MatrixSpec& spec) {
  static const std::set<std::string> known = {"name", "claim", "reps", "order", "seed", "defaults", "configs", "workloads", "kernel"};
  for (const auto& [k, node] : root)
    if (!known.count(std::string(k.str()))) return spec_error(path, fmt::format("unknown key '{}'", k.str()));
  spec.name = root["name"].value_or(fs::path(path).stem().string());
  if (auto claim = root["claim"].value<std::string>()) {
    fs::path p(*claim);
    if (p.is_relative()) p = fs::path(path).parent_path() / p;
    spec.claim = fs::absolute(p).lexically_normal().string();
  }
  // kernel = "hz1000-throttle": the VM boots this kernel (cgmem kernel list).
  if (root.contains("kernel")) {
    auto kernel = root["kernel"].value<std::string>();
    if (!kernel || kernel->empty()) return spec_error(path, "kernel must be a kernel name or a bzImage path");
    spec.kernel = *kernel;
  }
  spec.reps = static_cast<int>(root["reps"].value_or(int64_t{3}));
  if (spec.reps < 1) return spec_error(path, "reps must be 1 or more");
  std::string order = root["order"].value_or(std::string("fixed"));
  if (order != "fixed" && order != "shuffle") return spec_error(path, "order must be \"fixed\" or \"shuffle\"");
  spec.shuffle = order == "shuffle";
  spec.seed = static_cast<uint64_t>(root["seed"].value_or(int64_t{1}));
  if (const toml::table* d = root["defaults"].as_table())
    if (auto r = read_flags(*d, {}, "defaults", path, spec.defaults); !r) return std::unexpected(r.error());
  return {};
}

}  // namespace

std::string run_flag(const std::string& key) {
  const FlagKey* f = find_flag(key);
  return f ? f->flag : "";
}

std::optional<std::string> resolve_percent(const RunFlags& flags, const std::string& key) {
  auto max = flags.find("max");
  if (max == flags.end()) return std::nullopt;
  auto max_bytes = parse_bytes(max->second);
  if (!max_bytes) return std::nullopt;
  auto share = parse_limit(flags.at(key), {.percent_of = *max_bytes});
  if (!share || share->is_max()) return std::nullopt;
  constexpr uint64_t kPage = 4096;
  return std::to_string(share->bytes() / kPage * kPage);
}

std::optional<double> parse_seconds(const std::string& text, double bare_unit_s) {
  double value = 0;
  const char* end = text.data() + text.size();
  auto [p, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || value < 0) return std::nullopt;
  std::string_view unit(p, static_cast<size_t>(end - p));
  if (unit.empty()) return value * bare_unit_s;
  if (unit == "ms") return value / 1000;
  if (unit == "s") return value;
  if (unit == "m" || unit == "min") return value * 60;
  if (unit == "h") return value * 3600;
  return std::nullopt;
}

Result<MatrixSpec> parse_spec(std::string_view text, const std::string& path) {
  toml::parse_result parsed = toml::parse(text, path);
  if (!parsed) {
    const auto& e = parsed.error();
    return spec_error(path, fmt::format("line {}: {}", e.source().begin.line, e.description()));
  }
  const toml::table& root = parsed.table();
  MatrixSpec spec;
  spec.path = path;
  if (auto r = read_top(root, path, spec); !r) return std::unexpected(r.error());
  if (auto r = read_configs(root, path, spec); !r) return std::unexpected(r.error());
  if (auto r = read_workloads(root, path, spec); !r) return std::unexpected(r.error());
  for (auto& w : spec.workloads)
    if (w.reps && *w.reps < 1) return spec_error(path, "workload " + w.name + ".reps must be 1 or more");
  for (const auto& c : spec.configs) {
    RunFlags merged = spec.defaults;
    for (const auto& [k, v] : c.flags) merged[k] = v;
    for (const auto& [k, v] : merged)
      if (v.ends_with('%') && !resolve_percent(merged, k))
        return spec_error(path, fmt::format("config {}: {} '{}' is a share of max, and max is not a size", c.name, k, v));
  }
  return spec;
}

Result<MatrixSpec> load_spec(const std::string& path) {
  std::ifstream in(path);
  if (!in) return sys_error("read the matrix spec", path, "give the path of a spec such as examples/quick.toml");
  std::stringstream text;
  text << in.rdbuf();
  return parse_spec(text.str(), path);
}

}  // namespace cgmem::lab
