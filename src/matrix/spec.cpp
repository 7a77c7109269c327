#include "matrix/spec.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <limits>
#include <filesystem>
#include <set>
#include <sstream>

// Parse errors as values (toml::parse_result), never exceptions.
#define TOML_EXCEPTIONS 0
// toml++ 3.3.0's parse_key() asserts on "[#" (found by fuzz_matrix_spec), a
// case it then reports as a parse error. Its asserts are off in release
// builds; keep them off in every build, so the fuzzer tests what ships.
#define TOML_ASSERT(expr) static_cast<void>(0)
#include <toml++/toml.h>

#include "common/duration.h"
#include "common/file.h"
#include "common/size.h"

namespace cgmem::matrix {

namespace {

namespace fs = std::filesystem;

// Bounds that keep a typo (reps = 1e6) from planning a year of runs.
constexpr int64_t kMaxReps = 1000;
constexpr uint64_t kMaxRuns = 100000;

// spec key -> `cgmem run` flag, and what the value is.
// A duration is checked with the parser `cgmem run` uses, in the flag's own
// bare unit, so a spec takes exactly the durations its runs will.
enum class Kind { size, limit, whole_number, duration_s, duration_ms, text, flag };
struct FlagKey {
  const char* key;
  const char* flag;
  Kind kind;
};
constexpr FlagKey kFlags[] = {
    {"max", "--max", Kind::limit},          {"high", "--high", Kind::limit},
    {"low", "--low", Kind::limit},          {"min", "--min", Kind::limit},
    {"swap_max", "--swap-max", Kind::limit}, {"swap_high", "--swap-high", Kind::limit}, {"io_rbps", "--io-rbps", Kind::size},
    {"io_wbps", "--io-wbps", Kind::size},   {"cpu", "--cpu", Kind::whole_number},
    {"sampler_cpu", "--sampler-cpu", Kind::whole_number}, {"interval", "--interval", Kind::duration_ms},
    {"cap", "--cap", Kind::duration_s},     {"neighbour", "--neighbour", Kind::duration_ms},
    {"parent", "--parent", Kind::text},     {"high_throttle", "--high-throttle", Kind::whole_number},
    {"ready_tcp", "--ready-tcp", Kind::whole_number}, {"ready_delay", "--ready-delay", Kind::duration_s},
    {"neighbours", "--neighbours", Kind::whole_number},  // a whole number; cgmem run checks 1 to 64
    {"trace", "--trace", Kind::flag},           // true or false: a flag without a value
};

const FlagKey* find_flag(std::string_view key) {
  for (const auto& f : kFlags)
    if (key == f.key) return &f;
  return nullptr;
}

std::unexpected<Error> spec_error(const std::string& path, const std::string& what) {
  return fail("matrix spec: " + what, path, "see docs/matrix.md for the format");
}

std::string toml_type_name(toml::node_type type) {
  std::ostringstream out;
  out << type;
  return out.str();
}

// Config and workload names become run directory and cgroup names
// ("WORKLOAD-CONFIG-rN"), so they are one safe path component: no '/', no
// leading '.', nothing a shell or a file name would read twice.
Result<void> check_name(const std::string& name, const std::string& where, const std::string& path,
                        const char* noun = "name") {
  constexpr size_t kMaxName = 64;
  bool ok = !name.empty() && name.size() <= kMaxName && std::isalnum(static_cast<unsigned char>(name[0]));
  for (char c : name) ok = ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.');
  if (ok) return {};
  return fail(fmt::format("matrix spec: {} {} '{}' is not allowed", where, noun, name), path,
              "a name is 1 to 64 letters, digits, '-', '_' or '.', starting with a letter or digit");
}

// An optional integer key within [min, max]; a value of another type (a
// string, a float) is an error, not the default.
Result<std::optional<int64_t>> integer(const toml::table& t, const char* key, const std::string& where,
                                       const std::string& path, int64_t min, int64_t max) {
  const toml::node* node = t.get(key);
  if (!node) return std::nullopt;
  auto value = node->value_exact<int64_t>();
  if (!value)
    return spec_error(path, fmt::format("{}{} must be an integer ({} given)", where, key, toml_type_name(node->type())));
  if (*value < min || *value > max)
    return spec_error(path, fmt::format("{}{} = {} is out of range ({} to {})", where, key, *value, min, max));
  return *value;
}

// A value as text: strings as they are, integers in decimal.
std::optional<std::string> text_of(const toml::node& node) {
  if (auto s = node.value<std::string>()) return *s;
  if (node.is_integer()) return std::to_string(*node.value<int64_t>());
  return std::nullopt;
}

bool valid(Kind kind, const std::string& value) {
  switch (kind) {
    case Kind::limit: return parse_limit(value, {.allow_max = true, .percent_of = 100}).has_value();
    case Kind::size: return parse_bytes(value).has_value();
    case Kind::whole_number: {
      unsigned cpu = 0;
      auto [p, ec] = std::from_chars(value.data(), value.data() + value.size(), cpu);
      return ec == std::errc() && p == value.data() + value.size();
    }
    case Kind::duration_s: return parse_duration(value, TimeUnit::s).has_value();
    case Kind::duration_ms: return parse_duration(value, TimeUnit::ms).has_value();
    case Kind::text: return !value.empty();
    case Kind::flag: return value == "true";
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
    if (f->kind == Kind::flag) {  // true: the flag; false unsets it
      auto on = node.value_exact<bool>();
      if (!on) return spec_error(path, fmt::format("{}.{} must be true or false", where, key));
      flags[key] = *on ? "true" : "";
      continue;
    }
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
    if (auto ok = check_name(c.name, "config", path); !ok) return std::unexpected(ok.error());
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
    if (auto ok = check_name(w.name, "workload", path); !ok) return std::unexpected(ok.error());
    for (const auto& other : spec.workloads)
      if (other.name == w.name) return spec_error(path, "two workloads are named " + w.name);
    auto args = strings(t->get("args"), "workload " + w.name + ".args", path);
    if (!args) return std::unexpected(args.error());
    w.args = *args;
    auto command = strings(t->get("command"), "workload " + w.name + ".command", path);
    if (!command) return std::unexpected(command.error());
    w.command = *command;
    auto load = strings(t->get("load"), "workload " + w.name + ".load", path);
    if (!load) return std::unexpected(load.error());
    w.load = *load;
    auto programs = strings(t->get("programs"), "workload " + w.name + ".programs", path);
    if (!programs) return std::unexpected(programs.error());
    if (t->contains("programs")) w.programs = *programs;
    auto trees = strings(t->get("trees"), "workload " + w.name + ".trees", path);
    if (!trees) return std::unexpected(trees.error());
    w.trees = *trees;
    for (const auto& tree : w.trees)
      if (!tree.starts_with('/'))
        return spec_error(path, fmt::format("workload {}: tree '{}' is not an absolute path (the guest mounts it there)", w.name, tree));
    auto build = strings(t->get("build"), "workload " + w.name + ".build", path);
    if (!build) return std::unexpected(build.error());
    w.build = *build;
    if (!w.build.empty() && w.build.front().empty())
      return spec_error(path, fmt::format("workload {}: build[0], the program, is empty", w.name));
    if (!w.command.empty() && !w.args.empty())
      return spec_error(path, fmt::format("workload {} has both args (the built-in workload) and command", w.name));
    if (w.command.empty() && (!w.load.empty() || w.programs || !w.trees.empty() || !w.build.empty() ||
                              t->contains("ready_tcp") || t->contains("ready_delay")))
      return spec_error(path, fmt::format("workload {}: load, programs, trees, build, ready_tcp and ready_delay go with command", w.name));
    if (!w.command.empty() && w.command.front().empty())
      return spec_error(path, fmt::format("workload {}: command[0], the program, is empty", w.name));
    auto configs = strings(t->get("configs"), "workload " + w.name + ".configs", path);
    if (!configs) return std::unexpected(configs.error());
    w.configs = *configs;
    for (const auto& c : w.configs) {
      bool known = false;
      for (const auto& config : spec.configs) known |= config.name == c;
      if (!known) return spec_error(path, fmt::format("workload {} names config '{}', which is not defined", w.name, c));
    }
    auto kernels = strings(t->get("kernels"), "workload " + w.name + ".kernels", path);
    if (!kernels) return std::unexpected(kernels.error());
    w.kernels = *kernels;
    for (const auto& k : w.kernels)
      if (!find_kernel(spec, k))
        return spec_error(path, fmt::format("workload {} names kernel '{}', which is not defined", w.name, k));
    auto reps = integer(*t, "reps", "workload " + w.name + ".", path, 1, kMaxReps);
    if (!reps) return std::unexpected(reps.error());
    if (*reps) w.reps = static_cast<int>(**reps);
    if (auto r = read_flags(*t, {"name", "args", "command", "load", "programs", "trees", "build", "configs", "kernels", "reps"}, "workload " + w.name, path, w.flags); !r)
      return std::unexpected(r.error());
    spec.workloads.push_back(std::move(w));
  }
  return {};
}

// A [[kernels]] entry's swap: swap = "256M", swap_kind = "disk" or "zram",
// zswap = true (in front of a disk swap).
Result<void> read_kernel_swap(const toml::table& t, const std::string& where, const std::string& path, KernelSpec& k) {
  for (const char* key : {"swap", "swap_kind"})
    if (const toml::node* node = t.get(key); node && !node->is_string())
      return spec_error(path, fmt::format("{}.{} must be a string ({} given)", where, key, toml_type_name(node->type())));
  if (const toml::node* node = t.get("zswap"); node && !node->is_boolean())
    return spec_error(path, fmt::format("{}.zswap must be true or false ({} given)", where, toml_type_name(node->type())));
  k.swap = t["swap"].value_or(std::string());
  k.swap_kind = t["swap_kind"].value_or(std::string());
  k.zswap = t["zswap"].value_or(false);
  if (!k.swap.empty() && !parse_bytes(k.swap))
    return spec_error(path, fmt::format("{}.swap = '{}' is not a size (256M)", where, k.swap));
  if (!k.swap_kind.empty() && k.swap_kind != "disk" && k.swap_kind != "zram")
    return spec_error(path, fmt::format("{}.swap_kind = '{}' is not disk or zram", where, k.swap_kind));
  bool no_swap = k.swap.empty() || *parse_bytes(k.swap) == 0;
  if (no_swap && (k.zswap || !k.swap_kind.empty()))
    return spec_error(path, fmt::format("{} sets {} without a swap size: add swap = \"SIZE\"", where,
                                        k.zswap ? "zswap" : "swap_kind"));
  if (k.zswap && k.swap_kind == "zram")
    return spec_error(path, where + ": zswap sits in front of a disk swap, not zram (swap_kind = \"disk\" or none)");
  return {};
}

// [[kernels]]: each config x workload runs on each, one VM session per
// kernel, in BATCH/LABEL; so a label is one safe path component.
Result<void> read_kernels(const toml::table& root, const std::string& path, MatrixSpec& spec) {
  const toml::node* node = root.get("kernels");
  if (!node) return {};
  if (root.contains("kernel"))
    return spec_error(path, "kernel and [[kernels]] exclude each other: list the kernel under [[kernels]]");
  const toml::array* kernels = node->as_array();
  if (!kernels || kernels->empty()) return spec_error(path, "kernels must be [[kernels]] tables, at least one");
  for (size_t i = 0; i < kernels->size(); ++i) {
    const toml::table* t = (*kernels)[i].as_table();
    std::string where = fmt::format("kernels[{}]", i);
    if (!t) return spec_error(path, where + " is not a table");
    static const std::set<std::string> known = {"name", "label", "stock_slots", "swap", "swap_kind", "zswap"};
    for (const auto& [k, value] : *t)
      if (!known.count(std::string(k.str())))
        return spec_error(path, fmt::format("unknown key '{}' in {}", k.str(), where));
    KernelSpec k;
    auto name = (*t)["name"].value<std::string>();
    if (!name || name->empty()) return spec_error(path, where + " has no name (a kernel name or a bzImage path)");
    k.name = *name;
    auto slots = integer(*t, "stock_slots", "kernel " + k.name + ".", path, 1, 7);
    if (!slots) return std::unexpected(slots.error());
    if (*slots) k.stock_slots = static_cast<int>(**slots);
    if (auto ok = read_kernel_swap(*t, where, path, k); !ok) return std::unexpected(ok.error());
    if (const toml::node* label = t->get("label"); label && !label->is_string())
      return spec_error(path, fmt::format("{}.label must be a string ({} given)", where, toml_type_name(label->type())));
    k.label = (*t)["label"].value_or(k.stock_slots ? fmt::format("{}-slots{}", k.name, *k.stock_slots) : k.name);
    if (auto ok = check_name(k.label, "kernel", path, "label"); !ok) return std::unexpected(ok.error());
    if (find_kernel(spec, k.label)) return spec_error(path, "two kernels are labelled " + k.label);
    spec.kernels.push_back(std::move(k));
  }
  return {};
}

Result<void> read_top(const toml::table& root, const std::string& path, MatrixSpec& spec) {
  static const std::set<std::string> known = {"name", "claim", "reps", "order", "seed", "defaults", "configs", "workloads", "kernel", "kernels"};
  for (const auto& [k, node] : root)
    if (!known.count(std::string(k.str()))) return spec_error(path, fmt::format("unknown key '{}'", k.str()));
  for (const char* key : {"name", "claim", "order"})
    if (const toml::node* node = root.get(key); node && !node->is_string())
      return spec_error(path, fmt::format("{} must be a string ({} given)", key, toml_type_name(node->type())));
  spec.name = root["name"].value_or(fs::path(path).stem().string());
  if (auto claim = root["claim"].value<std::string>()) {
    if (claim->empty()) return spec_error(path, "claim is empty");
    fs::path p(*claim);
    if (p.is_relative()) p = fs::path(path).parent_path() / p;
    spec.claim = fs::absolute(p).lexically_normal().string();
  }
  // kernel = "hz1000-throttle": the VM boots this kernel (cgmem kernel list).
  if (root.contains("kernel")) {
    auto kernel = root["kernel"].value<std::string>();
    if (!kernel || kernel->empty()) return spec_error(path, "kernel must be a kernel name or a bzImage path");
    spec.kernel = *kernel;
    spec.kernels.push_back({.name = *kernel, .label = *kernel});
  }
  auto reps = integer(root, "reps", "", path, 1, kMaxReps);
  if (!reps) return std::unexpected(reps.error());
  spec.reps = static_cast<int>(reps->value_or(3));
  std::string order = root["order"].value_or(std::string("fixed"));
  if (order != "fixed" && order != "shuffle") return spec_error(path, "order must be \"fixed\" or \"shuffle\"");
  spec.shuffle = order == "shuffle";
  auto seed = integer(root, "seed", "", path, 0, std::numeric_limits<int64_t>::max());
  if (!seed) return std::unexpected(seed.error());
  spec.seed = static_cast<uint64_t>(seed->value_or(1));
  if (const toml::table* d = root["defaults"].as_table())
    if (auto r = read_flags(*d, {}, "defaults", path, spec.defaults); !r) return std::unexpected(r.error());
  return {};
}

// A spec is ASCII. toml++ 3.3.0 reaches __builtin_unreachable() on some
// non-ASCII input (fuzz_matrix_spec found "[\xca\xac\\u"), so such bytes
// never reach it; names and values are ASCII anyway.
Result<void> check_ascii(std::string_view text, const std::string& path) {
  size_t line = 1;
  for (unsigned char c : text) {
    if (c == '\n') ++line;
    if (c >= 0x80 || (c < 0x20 && c != '\n' && c != '\t' && c != '\r') || c == 0x7f)
      return spec_error(path, fmt::format("line {}: byte 0x{:02x} is not printable ASCII; a spec is ASCII text", line, c));
  }
  return {};
}

}  // namespace

const KernelSpec* find_kernel(const MatrixSpec& spec, const std::string& label) {
  for (const auto& k : spec.kernels)
    if (k.label == label) return &k;
  return nullptr;
}

bool runs_on(const WorkloadSpec& w, const std::string& label) {
  return label.empty() || w.kernels.empty() || std::find(w.kernels.begin(), w.kernels.end(), label) != w.kernels.end();
}

void override_kernel(MatrixSpec& spec, const std::string& name) {
  spec.kernel = name;
  spec.kernels = {{.name = name, .label = name}};
  for (auto& w : spec.workloads) w.kernels.clear();
}

std::string run_flag(const std::string& key) {
  const FlagKey* f = find_flag(key);
  return f ? f->flag : "";
}

bool run_flag_takes_value(const std::string& key) {
  const FlagKey* f = find_flag(key);
  return !f || f->kind != Kind::flag;
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

Result<MatrixSpec> parse_spec(std::string_view text, const std::string& path) {
  if (auto ok = check_ascii(text, path); !ok) return std::unexpected(ok.error());
  toml::parse_result parsed = toml::parse(text, path);
  if (!parsed) {
    const auto& e = parsed.error();
    return spec_error(path, fmt::format("line {}: {}", e.source().begin.line, e.description()));
  }
  const toml::table& root = parsed.table();
  MatrixSpec spec;
  spec.path = path;
  if (auto r = read_top(root, path, spec); !r) return std::unexpected(r.error());
  if (auto r = read_kernels(root, path, spec); !r) return std::unexpected(r.error());
  if (auto r = read_configs(root, path, spec); !r) return std::unexpected(r.error());
  if (auto r = read_workloads(root, path, spec); !r) return std::unexpected(r.error());
  uint64_t runs = 0;
  for (const auto& w : spec.workloads) {
    size_t kernels = spec.kernels.empty() ? 1 : 0;
    for (const auto& k : spec.kernels) kernels += runs_on(w, k.label);
    runs += static_cast<uint64_t>(w.reps.value_or(spec.reps)) * (w.configs.empty() ? spec.configs.size() : w.configs.size()) *
            kernels;
  }
  if (runs > kMaxRuns)
    return spec_error(path, fmt::format("the spec plans {} runs, more than {}", runs, kMaxRuns));
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
  auto text = read_file(path, "the matrix spec");
  if (!text) {
    Error e = text.error();
    if (e.hint.empty()) e.hint = "give the path of a spec such as examples/quick.toml";
    return std::unexpected(e);
  }
  return parse_spec(*text, path);
}

}  // namespace cgmem::matrix
