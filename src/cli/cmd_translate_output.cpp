// `cgmem translate` output: a table for people, JSON for machines, and the
// model's verdict for a working set.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/cmd_translate.h"
#include "common/duration.h"
#include "managers/verdict.h"

namespace cgmem::cli {
namespace {

using nlohmann::json;
using managers::Assignment;

std::string value_text(const Assignment& a) {
  if (a.flag) return a.value.bytes() ? "1" : "0";
  return a.value.is_max() ? "max" : std::to_string(a.value.bytes());
}

std::string human_text(const Assignment& a) {
  if (a.flag) return a.value.bytes() ? "on" : "off";
  return format_limit(a.value);
}

json assignment_json(const Assignment& a) {
  json value = a.value.is_max() ? json("max") : json(a.value.bytes());
  return {{"scope", a.scope},   {"file", a.file},     {"set", a.set},
          {"value", value},     {"human", human_text(a)}, {"rule", a.rule},
          {"source", a.source}, {"caveats", a.caveats}};
}

json limit_json(const Limit& l) { return l.is_max() ? json("max") : json(l.bytes()); }

json cost_json(const model::BoundCost& b) {
  json out = {{"sleeps_per_batch", static_cast<int>(b.sleeps_per_batch)}, {"op_seconds", b.op_seconds}};
  if (b.slowdown > 0) out["slowdown"] = b.slowdown;
  if (b.seconds_to_kill) out["seconds_to_kill"] = *b.seconds_to_kill;
  if (b.seconds_swap_fill) out["seconds_swap_fill"] = *b.seconds_swap_fill;
  if (b.seconds_to_kill_is_lower_bound) out["seconds_to_kill_is_lower_bound"] = true;
  return out;
}

json swap_json(const model::SwapVerdict& s) {
  return {{"memory_swap_max", limit_json(s.swap_max)}, {"memory_swap_high", limit_json(s.swap_high)},
          {"host_swap", s.host_swap},                  {"swap_allowed", s.allowed},
          {"swapped", s.swapped},                      {"resident", s.resident},
          {"swapped_share", s.swapped_share},          {"swap_sleep_ms", s.swap_sleep_ms}};
}

// --host-swap, else the swap the manager's input names (the kubelet's node swap), else none.
uint64_t host_swap(const managers::Translation& t, const TranslateOutput& o) {
  return o.host_swap.value_or(t.host_swap.value_or(0));
}

struct ScopeVerdict {
  std::string scope;
  model::Verdict verdict;
};

std::vector<ScopeVerdict> verdicts(const managers::Translation& t, const TranslateOutput& o) {
  std::vector<ScopeVerdict> out;
  if (!o.working_set) return out;
  model::VerdictInput in{.working_set = *o.working_set, .alloc_rate = o.alloc_rate, .hz = o.hz,
                            .page_size = o.page_size, .host_swap = host_swap(t, o)};
  for (const auto& scope : managers::scopes(t))
    if (auto v = managers::verdict(t, scope, in)) out.push_back({scope, *v});
  return out;
}

void print_table(const managers::Translation& t, const TranslateOutput& o) {
  fmt::print("{}: what the cgroup v2 files get (page size {})\n\n", t.manager, o.page_size);
  size_t scope_w = 5, file_w = 4, value_w = 5, human_w = 5;
  for (const auto& a : t.assignments) {
    scope_w = std::max(scope_w, a.scope.size());
    file_w = std::max(file_w, a.file.size());
    value_w = std::max(value_w, value_text(a).size());
    human_w = std::max(human_w, human_text(a).size() + (a.set ? 0 : 10));
  }
  fmt::print("{:<{}}  {:<{}}  {:>{}}  {:<{}}  {}\n", "scope", scope_w, "file", file_w, "bytes", value_w,
             "value", human_w, "rule");
  for (const auto& a : t.assignments) {
    std::string human = a.set ? human_text(a) : human_text(a) + " (not set)";
    fmt::print("{:<{}}  {:<{}}  {:>{}}  {:<{}}  {}\n", a.scope, scope_w, a.file, file_w, value_text(a),
               value_w, human, human_w, a.rule);
    for (const auto& c : a.caveats) fmt::print("{:<{}}  ! {}\n", "", scope_w, c);
    if (o.sources) fmt::print("{:<{}}  source: {}\n", "", scope_w, a.source);
  }
  if (!t.notes.empty()) fmt::print("\n");
  for (const auto& n : t.notes) fmt::print("note: {}\n", n);
}

std::string host_text(const managers::Translation& t, const TranslateOutput& o) {
  uint64_t swap = host_swap(t, o);
  if (swap == 0) return "for a host without swap (as the study's)";
  return fmt::format("for a host with {} of swap{}", format_bytes(swap),
                     o.host_swap ? "" : " (the node's, --swap-capacity; --host-swap for another)");
}

void print_swap(const model::Verdict& v) {
  if (!v.swap || v.swap->swapped == 0) return;
  const auto& s = *v.swap;
  fmt::print("    {:<22} {} of {} allowed ({:.1f}% of the working set); memory.current {}{}\n", "in swap:",
             format_bytes(s.swapped), format_bytes(s.allowed), 100 * s.swapped_share, format_bytes(s.resident),
             v.oom_at ? fmt::format("; OOM kill at {}", format_bytes(*v.oom_at)) : "");
}

void print_verdicts(const managers::Translation& t, const std::vector<ScopeVerdict>& vs,
                    const TranslateOutput& o) {
  if (!o.working_set) return;
  fmt::print("\nverdict for a working set of {} at HZ={}{}, {}:\n", format_bytes(*o.working_set), o.hz,
             o.hz == 1000 ? " (the default, the study's kernel; --hz for yours)" : "", host_text(t, o));
  for (const auto& [scope, v] : vs) {
    fmt::print("  {}: {}\n", scope, v.summary);
    print_swap(v);
    if (v.kind == model::VerdictKind::throttled)
      for (const auto* b : {&v.per_batch, &v.per_page})
        fmt::print("    {:<22} {} per 256KiB allocation{}\n",
                   b->sleeps_per_batch == 1 ? "one sleep per batch:" : "one sleep per page:",
                   format_duration(b->op_seconds, DurationStyle::prose),
                   b->slowdown > 0 ? fmt::format(", {:.0f}x slower", b->slowdown) : "");
    if (v.kind == model::VerdictKind::oom && v.per_batch.seconds_to_kill)
      for (const auto* b : {&v.per_batch, &v.per_page})
        fmt::print("    {:<22} killed {}{} after reaching memory.{}\n",
                   b->sleeps_per_batch == 1 ? "one sleep per batch:" : "one sleep per page:",
                   b->seconds_to_kill_is_lower_bound ? "at least " : "", format_duration(*b->seconds_to_kill, DurationStyle::prose),
                   !v.high.is_max() && (v.max.is_max() || v.high < v.max) ? "high" : "max");
  }
  if (vs.empty()) fmt::print("  no scope has memory.high or memory.max\n");
}

}  // namespace

nlohmann::json verdict_json(const model::Verdict& v, const std::string& scope) {
  auto limit = limit_json;
  nlohmann::json out = {{"scope", scope},           {"verdict", model::kind_name(v.kind)},
              {"working_set", v.working_set}, {"memory_high", limit(v.high)},
              {"memory_max", limit(v.max)}, {"hz", v.hz},
              {"summary", v.summary}};
  if (v.sleep_start) out["sleep_start"] = *v.sleep_start;
  if (v.oom_at) out["oom_at"] = *v.oom_at;
  if (v.kind == model::VerdictKind::throttled) out["sleep_ms"] = v.sleep_ms;
  if (v.kind != model::VerdictKind::fits) out["per_batch"] = cost_json(v.per_batch), out["per_page"] = cost_json(v.per_page);
  if (v.seconds_to_high) out["seconds_to_high"] = *v.seconds_to_high;
  if (v.seconds_to_max_unthrottled) out["seconds_to_max_unthrottled"] = *v.seconds_to_max_unthrottled;
  if (v.seconds_to_oom_unthrottled) out["seconds_to_oom_unthrottled"] = *v.seconds_to_oom_unthrottled;
  if (v.swap) out["swap"] = swap_json(*v.swap);
  return out;
}

void print_translation(const managers::Translation& t, const TranslateOutput& o) {
  auto vs = verdicts(t, o);
  if (o.json) {
    json out = {{"manager", t.manager}, {"page_size", o.page_size}, {"notes", t.notes}};
    if (o.working_set) out["verdict_assumes_no_swap"] = host_swap(t, o) == 0, out["host_swap"] = host_swap(t, o);
    out["assignments"] = json::array();
    for (const auto& a : t.assignments) out["assignments"].push_back(assignment_json(a));
    if (o.working_set) {
      out["verdicts"] = json::array();
      for (const auto& [scope, v] : vs) out["verdicts"].push_back(verdict_json(v, scope));
    }
    fmt::print("{}\n", out.dump(2));
    return;
  }
  print_table(t, o);
  print_verdicts(t, vs, o);
}

}  // namespace cgmem::cli
