// cgmem model table: the throttle over the RFC shift (its table form: time
// until the OOM kill against memory.high.throttle), over usage (where
// sleeping starts, where the cap is reached) and over k sleeps per batch.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cmath>

#include "cli/app.h"
#include "cli/cmd_model.h"
#include "common/exit_codes.h"
#include "model/predict.h"
#include "model/wheel.h"

namespace cgmem::cli {

namespace {

using nlohmann::json;

constexpr double kKs[] = {1, 2, 4, 8, 16, 32, 64};

json opt_bytes(const std::optional<uint64_t>& b) { return b ? json(*b) : json(nullptr); }
std::string opt_text(const std::optional<uint64_t>& b) { return b ? format_bytes(*b) : "never"; }
json finite(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

double percent_over(const model::Throttle& t, uint64_t usage) {
  return model::over_percent(model::to_pages(usage, t.kernel), model::to_pages(t.high, t.kernel));
}

model::Throttle with_k(model::Throttle t, double k) {
  t.sleeps_per_batch = k;
  return t;
}

json by_shift(const model::Throttle& base, const TableArgs& a, uint64_t from, uint64_t max) {
  json rows = json::array();
  for (uint32_t shift = 0; shift <= a.max_shift; ++shift) {
    model::Throttle t = base;
    t.shift = shift;
    rows.push_back({{"shift", shift}, {"sleep_start", opt_bytes(model::sleep_start(t))},
                    {"per_batch_seconds", model::grow(with_k(t, 1), from, max).seconds},
                    {"per_page_seconds", model::grow(with_k(t, t.kernel.batch), from, max).seconds}});
  }
  return rows;
}

// Evenly spaced usages from memory.high to memory.max, plus the two edges.
std::vector<uint64_t> usages(const model::Throttle& t, uint64_t high, uint64_t max, uint32_t n) {
  std::vector<uint64_t> out;
  const uint64_t page = t.kernel.page_size;
  for (uint32_t i = 0; i <= n; ++i) out.push_back((high + (max - high) / n * i) / page * page);
  for (auto edge : {model::sleep_start(t), model::cap_start(t)})
    if (edge && *edge > high && *edge < max) out.push_back(*edge);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

json by_usage(const model::Throttle& t, const TableArgs& a, uint64_t max) {
  json rows = json::array();
  for (uint64_t usage : usages(t, t.high, max, std::max<uint32_t>(a.rows, 1))) {
    model::Penalty p = model::penalty(model::to_pages(usage, t.kernel), model::to_pages(t.high, t.kernel),
                                      t.kernel, t.kernel.batch, t.shift);
    rows.push_back({{"usage", usage}, {"overage_percent", percent_over(t, usage)},
                    {"penalty_jiffies", p.jiffies}, {"penalty_ms", model::jiffies_to_ms(p.jiffies, t.kernel)},
                    {"sleeps", p.sleeps}, {"clamped", p.clamped},
                    {"typical_ms", p.sleeps ? json(model::wheel_sleep(p.jiffies, t.kernel).typical_ms) : json(nullptr)},
                    {"per_batch_rate", finite(model::growth_rate(with_k(t, 1), usage))},
                    {"per_page_rate", finite(model::growth_rate(with_k(t, t.kernel.batch), usage))}});
  }
  return rows;
}

json by_k(const model::Throttle& t, uint64_t from, uint64_t max) {
  json rows = json::array();
  for (double k : kKs) {
    if (k > t.kernel.batch) break;
    model::Growth g = model::grow(with_k(t, k), from, max);
    rows.push_back({{"sleeps_per_batch", k}, {"seconds", g.seconds}, {"sleeps", g.sleeps}});
  }
  return rows;
}

std::string rate_text(const json& v) {
  if (v.is_null()) return "-";
  double rate = std::min(v.get<double>(), 1.8e19);  // below 2^64 for the cast
  return format_bytes(static_cast<uint64_t>(rate)) + "/s";
}

void print_tables(const json& out, const model::Throttle& t) {
  fmt::print("memory.high {}, memory.max {}, HZ={}, {} process{}\n", format_bytes(t.high),
             format_bytes(out["max"].get<uint64_t>()), t.kernel.hz, t.procs, t.procs == 1 ? "" : "es");
  auto start = model::sleep_start(t), cap = model::cap_start(t);
  fmt::print("sleeping starts at {} ({:.2f}% over); the {} s cap at {}{}\n\n", opt_text(start),
             start ? percent_over(t, *start) : 0.0, 2, opt_text(cap),
             cap ? fmt::format(" ({:.2f}% over)", percent_over(t, *cap)) : "");
  fmt::print("time until the OOM kill from {}, against memory.high.throttle:\n", format_bytes(out["from"].get<uint64_t>()));
  fmt::print("  {:>5}  {:>12}  {:>16}  {:>16}\n", "shift", "sleeps from", "per batch (s)", "per page (s)");
  for (const auto& r : out["by_shift"])
    fmt::print("  {:>5}  {:>12}  {:>16.1f}  {:>16.1f}\n", r["shift"].get<uint32_t>(),
               r["sleep_start"].is_null() ? "never" : format_bytes(r["sleep_start"].get<uint64_t>()),
               r["per_batch_seconds"].get<double>(), r["per_page_seconds"].get<double>());
  fmt::print("\nover usage (one batch of {} pages, shift {}):\n", t.kernel.batch, t.shift);
  fmt::print("  {:>10}  {:>7}  {:>9}  {:>6}  {:>11}  {:>14}  {:>14}\n", "usage", "over", "penalty", "sleeps",
             "wheel (ms)", "grows k=1", "grows k=64");
  for (const auto& r : out["by_usage"])
    fmt::print("  {:>10}  {:>6.2f}%  {:>6} ms  {:>6}  {:>11}  {:>14}  {:>14}\n",
               format_bytes(r["usage"].get<uint64_t>()), r["overage_percent"].get<double>(),
               r["penalty_ms"].get<double>(), r["sleeps"].get<bool>() ? (r["clamped"].get<bool>() ? "cap" : "yes") : "no",
               r["typical_ms"].is_null() ? "-" : fmt::format("{:g}", r["typical_ms"].get<double>()),
               rate_text(r["per_batch_rate"]), rate_text(r["per_page_rate"]));
  fmt::print("\ntime until the OOM kill against k, sleeps per {}-page batch (shift {}):\n", t.kernel.batch, t.shift);
  fmt::print("  {:>4}  {:>12}  {:>8}\n", "k", "seconds", "sleeps");
  for (const auto& r : out["by_k"])
    fmt::print("  {:>4g}  {:>12.1f}  {:>8}\n", r["sleeps_per_batch"].get<double>(), r["seconds"].get<double>(),
               r["sleeps"].get<uint64_t>());
}

}  // namespace

void add_table(CLI::App& app, ModelOptions& o, TableArgs& a) {
  auto* cmd = app.add_subcommand("table", "tables over the RFC shift, over usage and over sleeps per batch");
  cmd->add_option("--high", a.high, "memory.high")->required()->check(size_validator({}));
  cmd->add_option("--max", a.max, "memory.max (where the OOM kill comes)")->required()->check(size_validator({}));
  cmd->add_option("--from", a.from, "usage to start from (default: memory.high)")->check(size_validator({}));
  cmd->add_option("--procs", a.procs, "processes allocating at once")->capture_default_str()
      ->check(whole_number(1, 1u << 20));
  cmd->add_option("--rows", a.rows, "rows in the usage table")->capture_default_str()->check(whole_number(1, 1000));
  cmd->add_option("--max-shift", a.max_shift, "last shift in the shift table")->capture_default_str()
      ->check(whole_number(0, 32));
  o.add_common(*cmd);
}

int run_table(const ModelOptions& o, const TableArgs& a) {
  const uint64_t high = bytes_of(a.high), max = bytes_of(a.max);
  const uint64_t from = a.from.empty() ? high : bytes_of(a.from);
  if (max <= high) {
    print_error(fmt::format("--max {} is not above --high {}: the table spans memory.high to memory.max", a.max, a.high));
    return kUsage;
  }
  if (from >= max) {
    print_error(fmt::format("--from {} is not below --max {}", a.from, a.max));
    return kUsage;
  }
  model::Throttle t{.kernel = o.kernel(), .high = high, .shift = o.shift, .procs = a.procs};
  json out = {{"high", high}, {"max", max}, {"from", from}, {"hz", t.kernel.hz}, {"shift", o.shift},
              {"procs", a.procs}, {"sleep_start", opt_bytes(model::sleep_start(t))},
              {"cap_start", opt_bytes(model::cap_start(t))}, {"by_shift", by_shift(t, a, from, max)},
              {"by_usage", by_usage(t, a, max)}, {"by_k", by_k(t, from, max)}, {"kernel", kernel_json(o, t.kernel)}};
  if (o.json) {
    fmt::print("{}\n", out.dump(2));
  } else {
    print_tables(out, t);
  }
  return kOk;
}

}  // namespace cgmem::cli
