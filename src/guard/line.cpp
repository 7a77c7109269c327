#include "guard/line.h"

#include <fmt/format.h>

#include <cmath>

#include "common/text.h"
#include "watch/render.h"

namespace cgmem::guard {
namespace {

using nlohmann::json;

json limit_json(const Limit& l) { return l.is_max() ? json("max") : json(l.bytes()); }

// JSON has no infinity: null stands for "never".
json seconds_json(double s) { return std::isfinite(s) ? json(s) : json(nullptr); }

json evidence_json(const Evidence& e) {
  json j = json::object();
  if (e.throttled_s) j["throttled_s"] = *e.throttled_s;
  if (e.thrash_s) j["thrash_s"] = *e.thrash_s;
  if (e.rise) j["rise_bytes"] = *e.rise;
  if (e.eta_s) j["eta_s"] = seconds_json(*e.eta_s);
  if (e.under_s) j["under_s"] = *e.under_s;
  if (e.shift && e.emulation) {
    j["emulate"] = {{"actual_s", e.emulation->actual_s},
                    {"emulated_s", e.emulation->emulated_s},
                    {"remaining_s", seconds_json(e.shift->remaining_s)},
                    {"budget_s", seconds_json(e.shift->budget_s)},
                    {"sleeps_counted", e.emulation->sleeps},
                    {"drained", e.shift->costs.drained},
                    {"sleeps_per_batch", e.shift->sleeps_per_batch},
                    {"drains_per_s", seconds_json(e.shift->costs.drains_per_s)},
                    {"per_event_s", e.shift->costs.per_event_s},
                    {"per_page_s", e.shift->costs.per_page_s},
                    {"start_usage", e.emulation->start_usage}};
  }
  return j;
}

}  // namespace

json decision_json(const Decision& d, const ActResult& o, bool dry_run, double unix_time_s) {
  json j = {
      {"t", std::round(unix_time_s * 1000) / 1000},
      {"t_mono", double(d.row->sample.t_ns) / 1e9},
      {"cgroup", d.row->path},
      {"rule", d.rule->name},
      {"rule_action", action_name(d.rule->action)},
      {"decision", verb_name(d.verb)},
      {"why", d.why},
      {"dry_run", dry_run},
      {"acted", o.acted},
      {"result", o.result},
      {"write_mode", o.write_mode.empty() ? nlohmann::json(nullptr) : nlohmann::json(o.write_mode)},
      {"condition", evidence_json(d.evidence)},
  };
  if (d.rule->action == Action::emulate_shift) j["shift"] = d.rule->shift;
  if (d.verb == Verb::raise_high || d.verb == Verb::restore)
    j["memory_high"] = {{"from", limit_json(d.expected_high)}, {"to", limit_json(d.new_high)}};
  json fresh = json::object();
  if (o.current) fresh["current"] = *o.current;
  if (o.high) fresh["high"] = limit_json(*o.high);
  if (o.tasks) fresh["tasks"] = *o.tasks;
  j["fresh"] = fresh;
  j["row"] = watch::row_json(*d.row, unix_time_s);
  return j;
}

std::string decision_text(const Decision& d, const ActResult& o) {
  // One line whatever the cgroup's name or an error's text holds: a name
  // with a newline or ESC must not forge a line or drive the terminal.
  return visible(
      fmt::format("{} {} (rule {}): {} -> {}{}{}", verb_name(d.verb), d.row->path, d.rule->name, d.why, o.result,
                  o.write_mode.empty() ? "" : "; ", o.write_mode));
}

}  // namespace cgmem::guard
