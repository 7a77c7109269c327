// cgmem model: the kernel's memory.high arithmetic, before anything runs.
//   cgmem model penalty  one return to user space at a usage
//   cgmem model grow     time from usage A to usage B (to memory.max: the OOM kill)
//   cgmem model table    the same over the RFC shift, over usage and over k
// HZ defaults to 1000 (the study's kernel) and is never read from the host,
// so the same command gives the same answer everywhere.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <charconv>

#include "cli/app.h"
#include "cli/cmd_model.h"
#include "cli/exit_codes.h"
#include "cli/handlers.h"
#include "model/penalty.h"
#include "model/predict.h"
#include "model/wheel.h"

namespace cgmem::cli {

namespace {

using nlohmann::json;

struct PenaltyArgs {
  std::string usage, high, swap_usage, swap_high;
  uint32_t pages = 64;
};

struct GrowArgs {
  std::string from, to, high;
  std::optional<double> k;
  uint32_t procs = 1;
};

json wheel_json(const model::WheelSleep& w) {
  return {{"level", w.level},         {"step_jiffies", w.step_jiffies},
          {"min_jiffies", w.min_jiffies}, {"typical_jiffies", w.typical_jiffies},
          {"max_jiffies", w.max_jiffies}, {"min_ms", w.min_ms},
          {"typical_ms", w.typical_ms}, {"max_ms", w.max_ms}};
}

double percent_over(uint64_t usage_pages, uint64_t high_pages) {
  if (usage_pages <= high_pages || high_pages == 0) return 0;
  return 100.0 * static_cast<double>(usage_pages - high_pages) / static_cast<double>(high_pages);
}

int run_penalty(const ModelOptions& o, const PenaltyArgs& a) {
  const model::Kernel k = o.kernel();
  model::Level memory{.usage = model::to_pages(bytes_of(a.usage), k),
                      .high = model::to_pages(bytes_of(a.high), k)};
  std::vector<model::Level> swap;
  if (!a.swap_usage.empty())
    swap.push_back({.usage = model::to_pages(bytes_of(a.swap_usage), k),
                    .high = model::to_pages(bytes_of(a.swap_high), k)});
  model::Penalty p = model::penalty(
      {.memory = {&memory, 1}, .swap = swap, .nr_pages = a.pages, .shift = o.shift}, k);
  const double ms = model::jiffies_to_ms(p.jiffies, k);
  const model::WheelSleep w = model::wheel_sleep(p.jiffies, k);
  const double over = percent_over(memory.usage, memory.high);

  if (o.json) {
    json out = {{"usage", memory.usage * k.page_size}, {"high", memory.high * k.page_size},
                {"hz", k.hz}, {"nr_pages", a.pages}, {"shift", o.shift},
                {"overage_percent", over}, {"penalty_jiffies", p.jiffies}, {"penalty_ms", ms},
                {"unclamped_jiffies", p.unclamped_jiffies}, {"clamped", p.clamped},
                {"sleeps", p.sleeps}, {"wheel", p.sleeps ? wheel_json(w) : json(nullptr)},
                {"kernel_wraps", p.kernel_wraps}, {"kernel_penalty_jiffies", p.kernel_jiffies}};
    if (!swap.empty()) out["swap_overage_percent"] = percent_over(swap[0].usage, swap[0].high);
    fmt::print("{}\n", out.dump(2));
    return kOk;
  }
  fmt::print("usage {} against memory.high {}: {:.2f}% over\n", format_bytes(memory.usage * k.page_size),
             format_bytes(memory.high * k.page_size), over);
  fmt::print("penalty: {} jiffies = {:g} ms at HZ={} for {} pages, shift {}{}\n", p.jiffies, ms, k.hz,
             a.pages, o.shift, p.clamped ? fmt::format(" (clamped from {})", p.unclamped_jiffies) : "");
  if (p.sleeps) {
    fmt::print("sleeps: yes, {:g} ms typical on the timer wheel (more than {:g}, at most {:g} ms; steps of {:g} ms)\n",
               w.typical_ms, w.min_ms, w.max_ms, model::jiffies_to_ms(w.step_jiffies, k));
  } else {
    fmt::print("sleeps: no (the kernel skips a penalty of {} jiffies or less)\n", k.hz / 100);
  }
  if (p.kernel_wraps)
    fmt::print("note: the kernel's 64-bit arithmetic wraps at this overage; it computes {} jiffies\n",
               p.kernel_jiffies);
  return kOk;
}

json growth_json(const model::Growth& g) {
  json out = {{"seconds", g.seconds}, {"sleeps", g.sleeps}};
  out["throttled_from"] = g.throttled_from ? json(*g.throttled_from) : json(nullptr);
  out["capped_from"] = g.capped_from ? json(*g.capped_from) : json(nullptr);
  return out;
}

int run_grow(const ModelOptions& o, const GrowArgs& a) {
  const uint64_t from = bytes_of(a.from), to = bytes_of(a.to);
  if (to <= from) {
    print_error(fmt::format("nothing to grow: --to {} is not above --from {}", a.to, a.from));
    return kUsage;
  }
  model::Throttle t{.kernel = o.kernel(), .high = bytes_of(a.high), .shift = o.shift,
                    .sleeps_per_batch = a.k.value_or(1), .procs = a.procs};
  model::Growth g = model::grow(t, from, to);
  model::Throttle wheel = t;
  wheel.wheel = true;
  const double wheel_seconds = model::grow(wheel, from, to).seconds;
  std::optional<model::Growth> per_batch, per_page;
  if (!a.k) {
    per_batch = g;
    t.sleeps_per_batch = t.kernel.batch;
    per_page = model::grow(t, from, to);
  }
  if (o.json) {
    json out = growth_json(g);
    out["seconds_wheel"] = wheel_seconds;
    out["sleeps_per_batch"] = a.k.value_or(1);
    out["procs"] = a.procs;
    out["hz"] = t.kernel.hz;
    out["shift"] = o.shift;
    if (per_page) {
      out["per_batch"] = growth_json(*per_batch);
      out["per_page"] = growth_json(*per_page);
    }
    fmt::print("{}\n", out.dump(2));
    return kOk;
  }
  fmt::print("from {} to {} with memory.high {} (HZ={}, shift {}, {} process{}):\n", format_bytes(from),
             format_bytes(to), format_bytes(t.high), t.kernel.hz, o.shift, a.procs, a.procs == 1 ? "" : "es");
  if (!g.throttled_from) {
    fmt::print("  no sleep anywhere in this range: the throttle costs nothing\n");
    return kOk;
  }
  fmt::print("  sleeping starts at {}{}\n", format_bytes(*g.throttled_from),
             g.capped_from ? fmt::format(", the 2 s cap from {}", format_bytes(*g.capped_from)) : "");
  if (per_page) {
    fmt::print("  one sleep per 64-page batch: {:.1f} s ({} sleeps)\n", per_batch->seconds, per_batch->sleeps);
    fmt::print("  one sleep per page:          {:.1f} s ({} sleeps)\n", per_page->seconds, per_page->sleeps);
  } else {
    fmt::print("  {:g} sleeps per batch: {:.1f} s ({} sleeps; {:.1f} s with timer-wheel rounding)\n", *a.k,
               g.seconds, g.sleeps, wheel_seconds);
  }
  return kOk;
}

void add_penalty(CLI::App& app, ModelOptions& o, PenaltyArgs& a) {
  auto* cmd = app.add_subcommand("penalty", "the sleep after one return to user space at a usage");
  cmd->add_option("--usage", a.usage, "memory.current")->required()->check(size_validator({}));
  cmd->add_option("--high", a.high, "memory.high")->required()->check(size_validator({}));
  cmd->add_option("--pages", a.pages, "pages charged since the last return (nr_pages)")
      ->capture_default_str()->check(CLI::Range(1u, 1u << 20));
  auto* su = cmd->add_option("--swap-usage", a.swap_usage, "memory.swap.current")->check(size_validator({}));
  auto* sh = cmd->add_option("--swap-high", a.swap_high, "memory.swap.high")->check(size_validator({}));
  su->needs(sh);
  sh->needs(su);
  o.add_common(*cmd);
}

void add_grow(CLI::App& app, ModelOptions& o, GrowArgs& a) {
  auto* cmd = app.add_subcommand("grow", "time to grow from one usage to another (to memory.max: the OOM kill)");
  cmd->add_option("--from", a.from, "usage at the start")->required()->check(size_validator({}));
  cmd->add_option("--to", a.to, "usage at the end, e.g. memory.max")->required()->check(size_validator({}));
  cmd->add_option("--high", a.high, "memory.high")->required()->check(size_validator({}));
  cmd->add_option("--sleeps-per-batch", a.k,
                  "k: 1 = one sleep per 64-page batch (the kernel's intent), 64 = one per page; "
                  "without it, both bounds")
      ->check(CLI::Validator(
          [](std::string& text) -> std::string {
            double k = 0;
            auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), k);
            if (ec == std::errc() && end == text.data() + text.size() && k >= 1 && k <= 64) return {};
            return fmt::format("'{}' is not a number from 1 (one sleep per batch) to 64 (one per page)", text);
          },
          "K"));
  cmd->add_option("--procs", a.procs, "processes allocating at once")->capture_default_str()
      ->check(CLI::Range(1u, 1u << 20));
  o.add_common(*cmd);
}

}  // namespace

uint64_t bytes_of(const std::string& text) { return limit_from(text, {}).bytes(); }

model::Kernel ModelOptions::kernel() const { return model::Kernel{.hz = hz, .batch = batch}; }

void ModelOptions::add_common(CLI::App& cmd) {
  cmd.add_option("--hz", hz, "the kernel's CONFIG_HZ (default 1000 as in the study; not read from the host)")
      ->capture_default_str()->check(CLI::Range(1u, 100000u));
  cmd.add_option("--shift", shift, "memory.high.throttle from the RFC, 0..32 (divides the penalty by 2^S)")
      ->capture_default_str()->check(CLI::Range(0u, 32u));
  cmd.add_option("--batch", batch, "MEMCG_CHARGE_BATCH, pages")->capture_default_str()
      ->check(CLI::Range(1u, 1u << 20));
  cmd.add_flag("--json", json, "print JSON");
}

int run_model(std::span<char*> args) {
  CLI::App app("The kernel's memory.high throttle arithmetic: predictions before anything runs.", "model");
  app.require_subcommand(1);
  ModelOptions options;
  PenaltyArgs penalty;
  GrowArgs grow;
  TableArgs table;
  add_penalty(app, options, penalty);
  add_grow(app, options, grow);
  add_table(app, options, table);
  const std::string_view first = args.empty() ? "" : args[0];
  if (!first.empty() && first[0] != '-' && first != "penalty" && first != "grow" && first != "table") {
    print_error(fmt::format("unknown model subcommand '{}'; use penalty, grow or table", args[0]));
    return kUsage;
  }
  if (int code = parse(app, args); code >= 0) return code;
  if (app.got_subcommand("penalty")) return run_penalty(options, penalty);
  if (app.got_subcommand("grow")) return run_grow(options, grow);
  return run_table(options, table);
}

}  // namespace cgmem::cli
