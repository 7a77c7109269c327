// cgmem model: the kernel's memory.high arithmetic, before anything runs.
//   cgmem model penalty  one return to user space at a usage
//   cgmem model grow     time from usage A to usage B (to memory.max: the OOM kill)
//   cgmem model table    the same over the RFC shift, over usage and over k
// HZ defaults to 1000 (the study's kernel) and is never read from the host,
// so the same command gives the same answer everywhere.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <sys/utsname.h>

#include <charconv>

#include "cli/app.h"
#include "cli/cmd_model.h"
#include "common/exit_codes.h"
#include "cli/handlers.h"
#include "model/penalty.h"
#include "model/predict.h"
#include "model/wheel.h"

namespace cgmem::cli {

namespace {

using nlohmann::json;

struct PenaltyArgs {
  std::string usage, high, swap_usage, swap_high, op;
  uint32_t pages = 64;
  std::optional<double> unthrottled_ms;
};

struct GrowArgs {
  std::string from, to, high;
  std::optional<double> k;
  std::optional<uint32_t> neighbours;  // other cgroups charging on the task's CPU
  uint32_t procs = 1;
};

// A validator for a decimal number in [lo, hi]: "'TEXT' is not WHAT".
CLI::Validator number_in(double lo, double hi, std::string what, std::string name) {
  return CLI::Validator(
      [lo, hi, what](std::string& text) -> std::string {
        double v = 0;
        auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
        if (ec == std::errc() && end == text.data() + text.size() && v >= lo && v <= hi) return {};
        return fmt::format("'{}' is not {}", text, what);
      },
      name);
}

json wheel_json(const model::WheelSleep& w) {
  return {{"level", w.level},         {"step_jiffies", w.step_jiffies},
          {"min_jiffies", w.min_jiffies}, {"typical_jiffies", w.typical_jiffies},
          {"max_jiffies", w.max_jiffies}, {"min_ms", w.min_ms},
          {"typical_ms", w.typical_ms}, {"max_ms", w.max_ms}};
}

// One operation of --op bytes at --usage, at one sleep per batch and per page
// (memory only), and its slowdown against --unthrottled-ms.
json op_costs(const ModelOptions& o, const PenaltyArgs& a) {
  model::Throttle t{.kernel = o.kernel(), .high = bytes_of(a.high), .shift = o.shift};
  const uint64_t usage = bytes_of(a.usage), bytes = bytes_of(a.op);
  json out = {{"bytes", bytes}};
  for (auto [name, k] : {std::pair{"per_batch", 1.0}, std::pair{"per_page", double(t.kernel.batch)}}) {
    t.sleeps_per_batch = k;
    json cost = {{"seconds", model::op_seconds(t, usage, bytes)}};
    if (a.unthrottled_ms) cost["slowdown"] = model::slowdown(t, usage, bytes, *a.unthrottled_ms / 1000.0);
    out[name] = cost;
  }
  return out;
}

void print_op(const json& op, const PenaltyArgs& a) {
  fmt::print("one {} operation: {:.3f} s at one sleep per batch, {:.3f} s at one per page\n",
             format_bytes(op["bytes"].get<uint64_t>()), op["per_batch"]["seconds"].get<double>(),
             op["per_page"]["seconds"].get<double>());
  if (a.unthrottled_ms)
    fmt::print("slowdown against {:g} ms unthrottled: {:.0f}x per batch, {:.0f}x per page\n", *a.unthrottled_ms,
               op["per_batch"]["slowdown"].get<double>(), op["per_page"]["slowdown"].get<double>());
}

// The penalty's answer as JSON (the readable output is printed from it).
json penalty_json(const ModelOptions& o, const PenaltyArgs& a) {
  const model::Kernel k = o.kernel();
  model::Level memory{.usage = model::to_pages(bytes_of(a.usage), k),
                      .high = model::to_pages(bytes_of(a.high), k)};
  std::vector<model::Level> swap;
  if (!a.swap_usage.empty())
    swap.push_back({.usage = model::to_pages(bytes_of(a.swap_usage), k),
                    .high = model::to_pages(bytes_of(a.swap_high), k)});
  model::Penalty p = model::penalty(
      {.memory = {&memory, 1}, .swap = swap, .nr_pages = a.pages, .shift = o.shift}, k);
  json out = {{"usage", memory.usage * k.page_size}, {"high", memory.high * k.page_size},
              {"hz", k.hz}, {"nr_pages", a.pages}, {"shift", o.shift},
              {"overage_percent", model::over_percent(memory.usage, memory.high)},
              {"penalty_jiffies", p.jiffies}, {"penalty_ms", model::jiffies_to_ms(p.jiffies, k)},
              {"unclamped_jiffies", p.unclamped_jiffies}, {"clamped", p.clamped}, {"sleeps", p.sleeps},
              {"wheel", p.sleeps ? wheel_json(model::wheel_sleep(p.jiffies, k)) : json(nullptr)},
              {"kernel_wraps", p.kernel_wraps}, {"kernel_penalty_jiffies", p.kernel_jiffies}};
  out["kernel"] = kernel_json(o, k);
  if (!swap.empty()) out["swap_overage_percent"] = model::over_percent(swap[0].usage, swap[0].high);
  if (!a.op.empty()) out["op"] = op_costs(o, a);
  return out;
}

void print_penalty(const json& j, const PenaltyArgs& a) {
  const auto hz = j["hz"].get<uint32_t>();
  const auto unclamped = j["unclamped_jiffies"].get<uint64_t>();
  fmt::print("usage {} against memory.high {}: {:.2f}% over\n", format_bytes(j["usage"].get<uint64_t>()),
             format_bytes(j["high"].get<uint64_t>()), j["overage_percent"].get<double>());
  std::string clamp = !j["clamped"].get<bool>() ? ""
                      : unclamped == UINT64_MAX ? " (clamped from 2^64 or more)"
                                                : fmt::format(" (clamped from {})", unclamped);
  fmt::print("penalty: {} jiffies = {:g} ms at HZ={} for {} pages, shift {}{}\n", j["penalty_jiffies"].get<uint64_t>(),
             j["penalty_ms"].get<double>(), hz, a.pages, j["shift"].get<uint32_t>(), clamp);
  if (const json& w = j["wheel"]; !w.is_null()) {
    fmt::print("sleeps: yes, {:g} ms typical on the timer wheel (more than {:g}, at most {:g} ms; steps of {:g} ms)\n",
               w["typical_ms"].get<double>(), w["min_ms"].get<double>(), w["max_ms"].get<double>(),
               w["step_jiffies"].get<double>() * 1000.0 / hz);
  } else {
    fmt::print("sleeps: no (the kernel skips a penalty of {} jiffies or less)\n", hz / 100);
  }
  if (j["kernel_wraps"].get<bool>())
    fmt::print("note: the kernel's 64-bit arithmetic wraps at this overage; it computes {} jiffies\n",
               j["kernel_penalty_jiffies"].get<uint64_t>());
  if (j.contains("op")) print_op(j["op"], a);
}

int run_penalty(const ModelOptions& o, const PenaltyArgs& a) {
  json out = penalty_json(o, a);
  if (o.json) {
    fmt::print("{}\n", out.dump(2));
  } else {
    print_penalty(out, a);
  }
  return kOk;
}

json growth_json(const model::Growth& g) {
  json out = {{"seconds", g.seconds}, {"sleeps", g.sleeps}};
  out["throttled_from"] = g.throttled_from ? json(*g.throttled_from) : json(nullptr);
  out["capped_from"] = g.capped_from ? json(*g.capped_from) : json(nullptr);
  return out;
}

// grow's answer: at k (1 unless given), with the timer wheel's rounding, and
// both bounds when k was not given.
json grow_json(const ModelOptions& o, const GrowArgs& a, uint64_t from, uint64_t to) {
  model::Throttle t{.kernel = o.kernel(), .high = bytes_of(a.high), .shift = o.shift,
                    .sleeps_per_batch = a.k.value_or(1), .procs = a.procs};
  // Beside N other cgroups the kernel's stock rule says which bound applies.
  if (a.neighbours && !a.k) t.sleeps_per_batch = model::sleeps_per_batch_beside(t.kernel, *a.neighbours);
  json out = growth_json(model::grow(t, from, to));
  model::Throttle wheel = t;
  wheel.wheel = true;
  out["seconds_wheel"] = model::grow(wheel, from, to).seconds;
  out["sleeps_per_batch"] = t.sleeps_per_batch;
  out["from"] = from, out["to"] = to, out["high"] = t.high;
  out["procs"] = a.procs, out["hz"] = t.kernel.hz, out["shift"] = o.shift, out["batch"] = t.kernel.batch;
  out["kernel"] = kernel_json(o, t.kernel);
  if (a.neighbours) {
    out["neighbours"] = *a.neighbours;
    out["regime"] = t.kernel.rules.per_page_possible(*a.neighbours) ? "per_page" : "per_batch";
  }
  if (!a.k) {
    t.sleeps_per_batch = 1;
    out["per_batch"] = growth_json(model::grow(t, from, to));
    t.sleeps_per_batch = t.kernel.batch;
    out["per_page"] = growth_json(model::grow(t, from, to));
  }
  return out;
}

void print_grow(const json& g) {
  const auto procs = g["procs"].get<uint32_t>();
  fmt::print("from {} to {} with memory.high {} (HZ={}, shift {}, {} process{}):\n",
             format_bytes(g["from"].get<uint64_t>()), format_bytes(g["to"].get<uint64_t>()),
             format_bytes(g["high"].get<uint64_t>()), g["hz"].get<uint32_t>(), g["shift"].get<uint32_t>(), procs,
             procs == 1 ? "" : "es");
  if (g["throttled_from"].is_null()) {
    fmt::print("  no sleep anywhere in this range: the throttle costs nothing\n");
    return;
  }
  fmt::print("  sleeping starts at {}{}\n", format_bytes(g["throttled_from"].get<uint64_t>()),
             g["capped_from"].is_null() ? ""
                                        : fmt::format(", the 2 s cap from {}", format_bytes(g["capped_from"].get<uint64_t>())));
  auto line = [](std::string_view label, const json& r) {
    fmt::print("  {:<28} {:.1f} s ({} sleeps)\n", label, r["seconds"].get<double>(), r["sleeps"].get<uint64_t>());
  };
  if (g.contains("per_page")) {
    line(fmt::format("one sleep per {}-page batch:", g["batch"].get<uint32_t>()), g["per_batch"]);
    line("one sleep per page:", g["per_page"]);
    if (g.contains("neighbours"))
      fmt::print("  beside {} other cgroup{} on its CPU, on {} ({}): {}, {:.1f} s\n", g["neighbours"].get<uint32_t>(),
                 g["neighbours"].get<uint32_t>() == 1 ? "" : "s", g["kernel"]["version"].get<std::string>(),
                 g["kernel"]["per_page_rule"].get<std::string>(),
                 g["regime"] == "per_page" ? "one sleep per page" : "one sleep per batch", g["seconds"].get<double>());
  } else {
    fmt::print("  {:g} sleeps per batch: {:.1f} s ({} sleeps; {:.1f} s with timer-wheel rounding)\n",
               g["sleeps_per_batch"].get<double>(), g["seconds"].get<double>(), g["sleeps"].get<uint64_t>(),
               g["seconds_wheel"].get<double>());
  }
}

int run_grow(const ModelOptions& o, const GrowArgs& a) {
  const uint64_t from = bytes_of(a.from), to = bytes_of(a.to);
  if (to <= from) {
    print_error(fmt::format("nothing to grow: --to {} is not above --from {}", a.to, a.from));
    return kUsage;
  }
  json out = grow_json(o, a, from, to);
  if (o.json) {
    fmt::print("{}\n", out.dump(2));
  } else {
    print_grow(out);
  }
  return kOk;
}

void add_penalty(CLI::App& app, ModelOptions& o, PenaltyArgs& a) {
  auto* cmd = app.add_subcommand("penalty", "the sleep after one return to user space at a usage");
  cmd->add_option("--usage", a.usage, "memory.current")->required()->check(size_validator({}));
  cmd->add_option("--high", a.high, "memory.high")->required()->check(size_validator({}));
  cmd->add_option("--pages", a.pages, "pages charged since the last return (nr_pages)")
      ->capture_default_str()->check(whole_number(1, 1u << 20));
  auto* su = cmd->add_option("--swap-usage", a.swap_usage, "memory.swap.current")->check(size_validator({}));
  auto* sh = cmd->add_option("--swap-high", a.swap_high, "memory.swap.high")->check(size_validator({}));
  su->needs(sh);
  sh->needs(su);
  auto* op = cmd->add_option("--op", a.op, "also the cost of one operation of this many bytes, e.g. 256K")
                 ->check(size_validator({}));
  cmd->add_option("--unthrottled-ms", a.unthrottled_ms, "the operation's latency without the limit, for the slowdown")
      ->needs(op)->check(number_in(1e-9, 1e12, "a latency in ms above 0", "MS"));
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
      ->check(number_in(1, 64, "a number from 1 (one sleep per batch) to 64 (one per page)", "K"));
  cmd->add_option("--procs", a.procs, "processes allocating at once")->capture_default_str()
      ->check(whole_number(1, 1u << 20));
  cmd->add_option("--neighbours", a.neighbours,
                  "other cgroups charging memory on the task's CPU: k by the kernel's stock rule (one sleep per "
                  "page once they reach the stock's slots, else per batch)")
      ->check(whole_number(0, 1u << 20));
  o.add_common(*cmd);
}

}  // namespace

uint64_t bytes_of(const std::string& text) { return limit_from(text, {}).bytes(); }

namespace {

// The host's release as uname(2) gives it, "" if it fails.
std::string host_release() {
  struct utsname u{};
  return ::uname(&u) == 0 ? std::string(u.release) : std::string();
}

// Where the version comes from: the flag, else this host, else 6.12's rules.
std::pair<model::KernelVersion, const char*> chosen_version(const ModelOptions& o) {
  if (!o.kernel_version.empty()) return {*model::parse_kernel_version(o.kernel_version), "flag"};
  if (auto v = model::parse_kernel_version(host_release())) return {*v, "host"};
  return {model::default_rules().version, "default"};
}

}  // namespace

model::Kernel ModelOptions::kernel() const {
  model::Kernel k{.hz = hz, .batch = batch, .rules = model::rules_for(chosen_version(*this).first, stock_slots)};
  // Before 6.0 the batch was 32 pages; --batch still decides when given.
  if (!batch_given) k.batch = k.rules.charge_batch;
  return k;
}

nlohmann::json kernel_json(const ModelOptions& o, const model::Kernel& k) {
  const model::KernelRules& r = k.rules;
  return {{"version", model::version_text(r.version)}, {"source", chosen_version(o).second},
          {"stock_slots", r.stock_slots}, {"stock_slots_source", r.stock_slots_overridden ? "flag" : "version"},
          {"charge_batch", r.charge_batch}, {"high_events_per_sleep", r.high_events_per_sleep},
          {"per_page_rule", r.per_page_rule()}, {"rules", r.names()}};
}

void ModelOptions::add_common(CLI::App& cmd) {
  cmd.add_option("--hz", hz, "the kernel's CONFIG_HZ (default 1000 as in the study; not read from the host)")
      ->capture_default_str()->check(whole_number(1, 100000));
  cmd.add_option("--shift", shift, "memory.high.throttle from the RFC, 0..32 (divides the penalty by 2^S)")
      ->capture_default_str()->check(whole_number(0, 32));
  cmd.add_option("--batch", batch, "MEMCG_CHARGE_BATCH, pages (default: the kernel version's, 64 from 6.0)")
      ->capture_default_str()->check(whole_number(1, 1u << 20))
      ->each([this](const std::string&) { batch_given = true; });
  cmd.add_option("--kernel-version", kernel_version,
                 "the kernel's version, X.Y or a release like 6.12.117+deb12-cloud-amd64, for the rules that "
                 "change with it (default: this host's uname release)")
      ->check(CLI::Validator(
          [](std::string& text) -> std::string {
            return model::parse_kernel_version(text) ? "" : fmt::format("'{}' is not a kernel version like 6.12", text);
          },
          "X.Y"));
  cmd.add_option("--stock-slots", stock_slots,
                 "memcgs one CPU's charge stock caches (1 before 6.16, 7 from 6.16; a patched kernel's "
                 "memcontrol.stock_slots)")
      ->check(whole_number(model::kMinStockSlots, model::kMaxStockSlots));
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
