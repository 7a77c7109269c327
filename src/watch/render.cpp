#include "watch/render.h"

#include <array>
#include <cmath>
#include <fmt/format.h>

#include "common/size.h"
#include "model/penalty.h"

namespace cgmem::watch {
namespace {

nlohmann::json limit_json(const Limit& l) {
  return l.is_max() ? nlohmann::json("max") : nlohmann::json(l.bytes());
}

// null for a value that was not read (a missing memory.high stays "max").
nlohmann::json limit_json(const Sample& s, File f, const Limit& l) {
  return s.trusted(f) ? limit_json(l) : nlohmann::json(nullptr);
}

// null unless the file was read: the swap files are missing without swap accounting.
nlohmann::json read_json(const Sample& s, File f, nlohmann::json value) {
  return s.has(f) ? std::move(value) : nlohmann::json(nullptr);
}

nlohmann::json optional_json(const std::optional<double>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

std::string percent(double share) { return fmt::format("{:.0f}%", share * 100); }

// "memory.swap.current +1.5MiB/s (12MiB in swap)", or the pages written
// where the kernel counts them and swap did not grow.
std::string swap_out_text(const Rates& r, const Sample& s) {
  if (r.swap_growth_bytes_per_s > 0)
    return fmt::format("memory.swap.current +{}/s ({} in swap)", format_bytes(uint64_t(r.swap_growth_bytes_per_s)),
                       format_bytes(s.swap_current));
  return fmt::format("swap-outs {:.0f} pages/s (pswpout + zswpout)", r.swapout_per_s);
}

}  // namespace

std::vector<std::string_view> reason_names(uint32_t reasons) {
  static constexpr std::array<std::string_view, kReasonCount> kNames = {
      "first_sample", "high_rising",    "max_rising",   "oom_kill",     "reclaim_frees",
      "refaulting",   "io_stalled",     "memory_stalled", "tasks_over_high", "near_high",
      "over_high",    "descendant_kill", "vanished", "major_faults",
      "current_unreadable", "current_malformed", "high_unreadable", "high_malformed",
      "max_unreadable", "max_malformed", "swap_out", "swap_in", "near_max", "swap_high_rising",
      "swap_max_rising", "swap_fail", "over_swap_high"};
  std::vector<std::string_view> out;
  for (size_t i = 0; i < kNames.size(); ++i)
    if (reasons & (1u << i)) out.push_back(kNames[i]);
  return out;
}

std::vector<std::string> describe(const Row& row) {
  std::vector<std::string> out;
  const Rates& r = row.rates;
  const Sample& s = row.sample;
  uint32_t why = row.reasons;
  if (why & kVanished) out.push_back("the cgroup's directory is gone");
  if (why & kCurrentUnreadable) out.push_back("memory.current could not be read (not a regular file, or a read error)");
  if (why & kCurrentMalformed) out.push_back("memory.current is not a byte count (garbage, negative or past 2^64-1)");
  if (why & kHighUnreadable) out.push_back("memory.high could not be read (not a regular file, or a read error)");
  if (why & kHighMalformed) out.push_back("memory.high is neither a byte count nor max");
  if (why & kMaxUnreadable) out.push_back("memory.max could not be read (not a regular file, or a read error)");
  if (why & kMaxMalformed) out.push_back("memory.max is neither a byte count nor max");
  if (why & kFirstSample) out.push_back("first sample: no rates yet");
  if (why & kOomKill)
    out.push_back(fmt::format("oom_kill +{} (memory.events.local)", r.rise.oom_kill + r.rise.oom_group_kill));
  if (why & kDescendantKill)
    out.push_back(fmt::format("oom_kill +{} in a descendant (memory.events)", r.descendant_oom_kill));
  if (why & kRefaulting)
    out.push_back(fmt::format("file refaults {:.3g} pages/s with pgsteal {:.3g} pages/s", r.refault_file_per_s,
                              r.pgsteal_per_s));
  if (why & kSwapIn)
    out.push_back(r.pswpin ? fmt::format("swap-ins {:.0f} pages/s (pswpin + zswpin)", r.swapin_per_s)
                           : fmt::format("swap-ins {:.0f} pages/s (workingset_refault_anon)", r.swapin_per_s));
  if (why & kSwapOut) out.push_back(swap_out_text(r, s));
  if (why & kMajorFaults) out.push_back(fmt::format("{:.0f} major faults/s", r.pgmajfault_per_s));
  if (why & kIoStalled) out.push_back(fmt::format("io PSI some {}", percent(r.io_some)));
  if (why & kHighRising)
    out.push_back(fmt::format("high +{} in {:.2f} s = {:.1f} sleeps/s", r.rise.high, r.dt_s,
                              r.high_per_s / double(model::kHighEventsPerSleep)));
  if ((why & kSwapHighRising) && (why & kOverSwapHigh))
    out.push_back(fmt::format("memory.swap.events high +{} in {:.2f} s = {:.1f} sleeps/s", r.swap_rise.high,
                              r.dt_s, r.swap_high_per_s / double(model::kHighEventsPerSleep)));
  else if (why & kSwapHighRising)  // the counter is hierarchical: a descendant is over its memory.swap.high
    out.push_back(fmt::format("memory.swap.events high +{} in {:.2f} s in a descendant", r.swap_rise.high, r.dt_s));
  if (why & kOverSwapHigh)
    out.push_back(fmt::format("memory.swap.current {} over memory.swap.high {}", format_bytes(s.swap_current),
                              format_limit(s.swap_high)));
  if (why & kMemoryStalled)
    out.push_back(fmt::format("memory PSI some {} full {}", percent(r.memory_some), percent(r.memory_full)));
  if (why & kTasksOverHigh)
    out.push_back(fmt::format("{} task(s) in D in mem_cgroup_handle_over_high", row.tasks.over_high));
  if ((why & kReclaimFrees) && !(why & kRefaulting))
    out.push_back(s.swap_current > 0 ? fmt::format("pgsteal {:.3g} pages/s with {} in swap", r.pgsteal_per_s,
                                                   format_bytes(s.swap_current))
                                     : fmt::format("pgsteal {:.3g} pages/s", r.pgsteal_per_s));
  if (why & kMaxRising)
    out.push_back(fmt::format("max +{}{}", r.rise.max, why & kOomKill ? "" : " without a kill"));
  if (why & kSwapMaxRising)
    out.push_back(fmt::format("memory.swap.events max +{}: swap-outs refused at memory.swap.max {}",
                              r.swap_rise.max, format_limit(s.swap_max)));
  if (why & kSwapFail) out.push_back(fmt::format("memory.swap.events fail +{}", r.swap_rise.fail));
  if (why & (kOverHigh | kNearHigh))
    out.push_back(fmt::format("memory.current {} of memory.high {}", format_bytes(s.current),
                              format_limit(s.high)));
  if (why & kNearMax)
    out.push_back(fmt::format("memory.current {} of memory.max {}", format_bytes(s.current), format_limit(s.max)));
  return out;
}

std::string json_line(const nlohmann::json& j) {
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

nlohmann::json row_json(const Row& row, double unix_time_s) {
  const Sample& s = row.sample;
  const Rates& r = row.rates;
  using nlohmann::json;
  json j = {
      {"t", std::round(unix_time_s * 1000) / 1000},
      {"t_mono", double(s.t_ns) / 1e9},
      {"cgroup", row.path},
      {"id", row.id},
      {"state", state_name(row.state)},
      {"event", row.from_event},
      // A quiet read: the files other than memory.current and memory.events are this old.
      {"carried_s", s.carried_from_ns ? json(double(s.t_ns - s.carried_from_ns) / 1e9) : json(nullptr)},
      {"reasons", reason_names(row.reasons)},
      {"evidence", describe(row)},
      {"memory", {{"current", s.has(File::current) ? json(s.current) : json(nullptr)},
                  {"high", limit_json(s, File::high, s.high)}, {"max", limit_json(s, File::max, s.max)},
                  {"anon", s.anon}, {"file", s.file},
                  {"swap_current", read_json(s, File::swap_current, s.swap_current)},
                  {"swap_high", read_json(s, File::swap_high, limit_json(s.swap_high))},
                  {"swap_max", read_json(s, File::swap_max, limit_json(s.swap_max))},
                  {"zswap_current", read_json(s, File::zswap_current, s.zswap_current)}}},
      {"events", {{"high", s.local.high}, {"max", s.local.max}, {"oom", s.local.oom},
                  {"oom_kill", s.local.oom_kill}, {"oom_group_kill", s.local.oom_group_kill}}},
      {"swap_events", read_json(s, File::swap_events,
                                {{"high", s.swap_events.high}, {"max", s.swap_events.max},
                                 {"fail", s.swap_events.fail}})},
      {"psi_avg10", {{"memory_some", s.memory.some_avg10}, {"memory_full", s.memory.full_avg10},
                     {"io_some", s.io.some_avg10}, {"io_full", s.io.full_avg10}}},
  };
  if (r.dt_s > 0) {
    j["rates"] = {{"interval_s", r.dt_s},
                  {"high_per_s", r.high_per_s},
                  {"max_per_s", r.max_per_s},
                  {"sleeps_per_s", r.sleeps_per_s},
                  {"pgsteal_per_s", r.pgsteal_per_s},
                  {"refaults_per_s", r.refaults_per_s},
                  {"refault_anon_per_s", r.refault_anon_per_s},
                  {"refault_file_per_s", r.refault_file_per_s},
                  {"swapin_per_s", r.swapin_per_s},
                  {"swapin_source", r.pswpin ? "pswpin" : "workingset_refault_anon"},
                  {"swapout_per_s", r.swapout_per_s},
                  {"swap_growth_bytes_per_s", r.swap_growth_bytes_per_s},
                  {"swap_high_per_s", r.swap_high_per_s},
                  {"swap_events", {{"high", r.swap_rise.high}, {"max", r.swap_rise.max}, {"fail", r.swap_rise.fail}}},
                  {"pgfault_per_s", r.pgfault_per_s},
                  {"pgmajfault_per_s", r.pgmajfault_per_s},
                  {"growth_bytes_per_s", r.growth_bytes_per_s},
                  {"oom_kills", r.rise.oom_kill + r.rise.oom_group_kill},
                  {"descendant_oom_kills", r.descendant_oom_kill},
                  {"memory_some", r.memory_some},
                  {"memory_full", r.memory_full},
                  {"io_some", r.io_some},
                  {"io_full", r.io_full}};
  } else {
    j["rates"] = nullptr;
  }
  const Forecast& f = row.forecast;
  if (f.valid) {
    j["forecast"] = {{"over_percent", f.over_percent},
                     {"swap_over_percent", f.swap_over_percent},
                     {"memory_delay_ms", f.memory_delay_ms},
                     {"swap_delay_ms", f.swap_delay_ms},
                     {"clamped", f.clamped},
                     {"sleep_s", f.sleep_s},
                     {"sleep_wheel_s", f.sleep_wheel_s},
                     {"pages_per_sleep", f.pages_per_sleep},
                     {"regime", regime_name(f.regime)},
                     {"regime_rule", f.regime_rule},
                     {"max_eta_s", optional_json(f.max_eta_s)},
                     {"max_eta_per_batch_s", optional_json(f.max_eta_per_batch_s)},
                     {"max_eta_per_page_s", optional_json(f.max_eta_per_page_s)}};
  } else {
    j["forecast"] = nullptr;
  }
  if (row.tasks.read) {
    json d = json::array();
    for (size_t i = 0; i < row.tasks.listed; ++i) {
      const Task& t = row.tasks.d[i];
      d.push_back({{"pid", t.pid}, {"comm", t.comm_view()}, {"wchan", t.wchan_view()}});
    }
    j["tasks"] = {{"total", row.tasks.total}, {"in_d", row.tasks.in_d},
                  {"over_high", row.tasks.over_high}, {"d", d}};
  } else {
    j["tasks"] = nullptr;
  }
  return j;
}

}  // namespace cgmem::watch
