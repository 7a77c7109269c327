#include "guard/policy.h"

#include <fmt/format.h>

#include <charconv>
#include <set>
#include <sstream>

// Parse errors as values, as in matrix/spec.cpp (the same settings in
// every file that includes toml++: one definition of its inline code).
#define TOML_EXCEPTIONS 0
#define TOML_ASSERT(expr) static_cast<void>(0)
#include <toml++/toml.h>

#include "common/file.h"
#include "common/size.h"
#include "common/duration.h"
#include "model/penalty.h"

namespace cgmem::guard {
namespace {

constexpr uint32_t kMaxPerMinute = 10000;
constexpr size_t kMaxRules = 1000;

std::unexpected<Error> policy_error(const std::string& path, const std::string& what) {
  return fail("guard policy: " + what, path, "see docs/guard.md for the format");
}

std::string type_name(const toml::node& node) {
  std::ostringstream out;
  out << node.type();
  return out.str();
}

// Keys each action takes besides name, match and action.
const std::set<std::string>& keys_of(Action a) {
  static const std::set<std::string> kConditions = {"throttled_for", "eta_over", "min_rise", "thrash_for"};
  static const std::set<std::string> kRaise = {"throttled_for", "step", "ceiling", "backoff", "restore_after"};
  static const std::set<std::string> kShift = {"shift"};
  switch (a) {
    case Action::kill:
    case Action::report: return kConditions;
    case Action::raise_high: return kRaise;
    case Action::emulate_shift: return kShift;
  }
  return kConditions;
}

std::optional<Action> action_from(std::string_view text) {
  for (Action a : {Action::kill, Action::raise_high, Action::emulate_shift, Action::report})
    if (text == action_name(a)) return a;
  return std::nullopt;
}

// Reads the keys of one table; `where` names it in messages.
class Reader {
 public:
  Reader(const toml::table& t, std::string where, const std::string& path) : t_(t), where_(std::move(where)), path_(path) {}

  Result<std::optional<std::string>> text(const char* key) const {
    const toml::node* node = t_.get(key);
    if (!node) return std::nullopt;
    if (auto s = node->value_exact<std::string>()) return *s;
    return policy_error(path_, fmt::format("{}.{} must be a string ({} given)", where_, key, type_name(*node)));
  }

  // "20s", "5m", "500ms"; a bare integer is seconds.
  Result<std::optional<double>> seconds(const char* key) const {
    const toml::node* node = t_.get(key);
    if (!node) return std::nullopt;
    std::string text;
    if (auto i = node->value_exact<int64_t>()) text = std::to_string(*i);
    else if (auto s = node->value_exact<std::string>()) text = *s;
    else return policy_error(path_, fmt::format("{}.{} must be a duration like \"20s\" ({} given)", where_, key, type_name(*node)));
    auto ns = parse_duration(text, TimeUnit::s);
    if (!ns) return policy_error(path_, fmt::format("{}.{} = '{}': {}", where_, key, text, ns.error().what));
    return double(*ns) / 1e9;
  }

  // "2M", "64MiB", 1048576.
  Result<std::optional<uint64_t>> bytes(const char* key) const {
    const toml::node* node = t_.get(key);
    if (!node) return std::nullopt;
    std::string text;
    if (auto i = node->value_exact<int64_t>(); i && *i >= 0) text = std::to_string(*i);
    else if (auto s = node->value_exact<std::string>()) text = *s;
    else return policy_error(path_, fmt::format("{}.{} must be a size like \"2M\" ({} given)", where_, key, type_name(*node)));
    auto b = parse_bytes(text);
    if (!b) return policy_error(path_, fmt::format("{}.{} = '{}' is not a size: {}", where_, key, text, b.error().what));
    return *b;
  }

  Result<std::optional<int64_t>> integer(const char* key, int64_t min, int64_t max) const {
    const toml::node* node = t_.get(key);
    if (!node) return std::nullopt;
    auto v = node->value_exact<int64_t>();
    if (!v) return policy_error(path_, fmt::format("{}.{} must be an integer ({} given)", where_, key, type_name(*node)));
    if (*v < min || *v > max)
      return policy_error(path_, fmt::format("{}.{} = {} is out of range ({} to {})", where_, key, *v, min, max));
    return *v;
  }

  Result<void> only(const std::set<std::string>& allowed, std::string_view what) const {
    for (const auto& [k, node] : t_)
      if (!allowed.count(std::string(k.str())))
        return policy_error(path_, fmt::format("{}: unknown key '{}'{}", where_, k.str(), what));
    return {};
  }

 private:
  const toml::table& t_;
  std::string where_;
  const std::string& path_;
};

#define TRY(var, expr)                                   \
  auto var = (expr);                                     \
  if (!var) return std::unexpected(var.error())

Result<void> read_conditions(const Reader& r, Conditions& c) {
  TRY(throttled, r.seconds("throttled_for"));
  TRY(eta, r.seconds("eta_over"));
  TRY(rise, r.bytes("min_rise"));
  TRY(thrash, r.seconds("thrash_for"));
  c.throttled_for_s = *throttled;
  c.eta_over_s = *eta;
  if (*rise) c.min_rise = std::max<uint64_t>(**rise, 1);
  c.thrash_for_s = *thrash;
  return {};
}

Result<void> read_raise(const Reader& r, const std::string& where, const std::string& path, Rule& rule) {
  TRY(throttled, r.seconds("throttled_for"));
  rule.when.throttled_for_s = *throttled;
  TRY(step, r.text("step"));
  if (!*step) return policy_error(path, where + ": raise-high needs step (\"2M\" or \"10%\")");
  std::string s = **step;
  if (!s.empty() && s.back() == '%') {
    double p = 0;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size() - 1, p);
    if (ec != std::errc() || end != s.data() + s.size() - 1 || !(p > 0 && p <= 1000))
      return policy_error(path, fmt::format("{}.step = '{}': a percentage is more than 0 and at most 1000", where, s));
    rule.raise.step_percent = p;
  } else {
    auto b = parse_bytes(s);
    if (!b || *b == 0)
      return policy_error(path, fmt::format("{}.step = '{}' is not a size or a percentage above 0", where, s));
    rule.raise.step_bytes = *b;
  }
  TRY(ceiling, r.bytes("ceiling"));
  rule.raise.ceiling = *ceiling;
  TRY(backoff, r.seconds("backoff"));
  if (*backoff) rule.raise.backoff_s = **backoff;
  TRY(restore, r.seconds("restore_after"));
  if (*restore) rule.raise.restore_after_s = **restore;
  return {};
}

Result<Rule> read_rule(const toml::table& t, size_t index, const std::string& path) {
  Rule rule;
  std::string where = fmt::format("rules[{}]", index);
  TRY(name, Reader(t, where, path).text("name"));
  if (!*name || (*name)->empty()) return policy_error(path, where + " has no name");
  rule.name = **name;
  where = fmt::format("rule '{}'", rule.name);
  Reader r(t, where, path);
  TRY(match, r.text("match"));
  if (!*match) return policy_error(path, where + " has no match (a regex on the path below --root, \".\" for all)");
  auto pattern = Pattern::compile(**match, where + ".match =");
  if (!pattern) return fail("guard policy: " + pattern.error().what, path, pattern.error().hint);
  rule.match = std::move(*pattern);
  TRY(action, r.text("action"));
  if (!*action) return policy_error(path, where + " has no action (kill, raise-high, emulate-shift or report)");
  auto a = action_from(**action);
  if (!a)
    return policy_error(path, fmt::format("{}.action = '{}' is not one of kill, raise-high, emulate-shift, report",
                                          where, **action));
  rule.action = *a;
  std::set<std::string> allowed = keys_of(rule.action);
  allowed.insert({"name", "match", "action"});
  if (auto ok = r.only(allowed, fmt::format(" (a {} rule takes: {})", action_name(rule.action),
                                            fmt::join(keys_of(rule.action), ", ")));
      !ok)
    return std::unexpected(ok.error());
  switch (rule.action) {
    case Action::kill:
    case Action::report:
      if (auto ok = read_conditions(r, rule.when); !ok) return std::unexpected(ok.error());
      if (rule.action == Action::kill && !rule.when.any())
        return policy_error(path, where + ": a kill rule needs throttled_for, eta_over or thrash_for");
      if (t.get("min_rise") && !rule.when.eta_over_s)
        return policy_error(path, where + ": min_rise only means something with eta_over");
      break;
    case Action::raise_high:
      if (auto ok = read_raise(r, where, path, rule); !ok) return std::unexpected(ok.error());
      break;
    case Action::emulate_shift: {
      TRY(shift, r.integer("shift", 0, model::kMaxThrottleShift));
      if (!*shift) return policy_error(path, where + ": emulate-shift needs shift (0 to 32)");
      rule.shift = uint32_t(**shift);
      break;
    }
  }
  return rule;
}

Result<void> read_limits(const toml::table& root, const std::string& path, Limits& limits) {
  const toml::node* node = root.get("limits");
  if (!node) return {};
  const toml::table* t = node->as_table();
  if (!t) return policy_error(path, "limits must be a table ([limits])");
  Reader r(*t, "limits", path);
  if (auto ok = r.only({"per_cgroup", "per_minute"}, " (limits takes per_cgroup, per_minute)"); !ok) return ok;
  TRY(per_cgroup, r.seconds("per_cgroup"));
  if (*per_cgroup) limits.per_cgroup_s = **per_cgroup;
  TRY(per_minute, r.integer("per_minute", 1, kMaxPerMinute));
  if (*per_minute) limits.per_minute = uint32_t(**per_minute);
  return {};
}

}  // namespace

std::string_view action_name(Action a) {
  switch (a) {
    case Action::kill: return "kill";
    case Action::raise_high: return "raise-high";
    case Action::emulate_shift: return "emulate-shift";
    case Action::report: break;
  }
  return "report";
}

Result<Policy> parse_policy(std::string_view text, const std::string& path) {
  toml::parse_result parsed = toml::parse(text, path);
  if (!parsed) {
    const auto& e = parsed.error();
    return policy_error(path, fmt::format("line {}, column {}: {}", e.source().begin.line, e.source().begin.column,
                                          e.description()));
  }
  const toml::table& root = parsed.table();
  for (const auto& [k, node] : root)
    if (k.str() != "rules" && k.str() != "limits")
      return policy_error(path, fmt::format("unknown top-level key '{}' (a policy has [limits] and [[rules]])", k.str()));
  Policy policy;
  if (auto ok = read_limits(root, path, policy.limits); !ok) return std::unexpected(ok.error());
  const toml::array* rules = root["rules"].as_array();
  if (!rules || rules->empty()) return policy_error(path, "no [[rules]]");
  if (rules->size() > kMaxRules) return policy_error(path, fmt::format("more than {} rules", kMaxRules));
  for (size_t i = 0; i < rules->size(); ++i) {
    const toml::table* t = (*rules)[i].as_table();
    if (!t) return policy_error(path, fmt::format("rules[{}] is not a table", i));
    TRY(rule, read_rule(*t, i, path));
    for (const Rule& other : policy.rules)
      if (other.name == rule->name) return policy_error(path, "two rules are named " + rule->name);
    policy.rules.push_back(std::move(*rule));
  }
  return policy;
}

Result<Policy> load_policy(const std::string& path) {
  auto text = read_file(path, "read the guard policy");
  if (!text) return std::unexpected(text.error());
  return parse_policy(*text, path);
}

const Rule* rule_for(const Policy& policy, std::string_view path) {
  for (const Rule& r : policy.rules)
    if (r.match.search(path)) return &r;
  return nullptr;
}

}  // namespace cgmem::guard
