// cgmem advise RUN...: the memory.high and memory.max to set for a program,
// from run directories recorded without limits, with what the kernel's
// arithmetic says they will do to it (docs/advise.md). Reads only.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <thread>
#include <ctime>

#include "advise/live.h"
#include "advise/probe.h"
#include "advise/prometheus.h"
#include "advise/recommend.h"
#include "advise/settings.h"
#include "advise/verify.h"
#include "cli/app.h"
#include "cli/cmd_translate.h"
#include "cli/handlers.h"
#include "cli/signals.h"
#include "cli/version.h"
#include "common/exit_codes.h"
#include "common/file.h"
#include "common/process.h"
#include "common/text.h"
#include "exporter/http_get.h"
#include "host/probe.h"
#include "common/duration.h"
#include "report/read_run.h"
#include "report/report.h"
#include "report/report_json.h"

namespace cgmem::cli {
namespace {

using nlohmann::json;

struct Flags {
  std::vector<std::string> dirs;
  std::string cgroup, watch_for = "10m", interval = "1s";
  std::string prometheus, selector, range = "7d";
  double headroom_pct = 25, high_margin_pct = 10;
  std::string crawl = "60s", host_swap;
  std::optional<uint32_t> hz;
  int kubernetes_minor = 36;
  bool json = false;
  bool verify = false, page_cache = false, probe = false;
  double probe_threshold_pct = 0.5;
  std::string probe_interval = "2s";
  std::string verify_out;
};

json optional_json(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

json advice_json(const advise::Advice& a, const std::vector<advise::Usage>& inputs,
                 const std::vector<advise::Setting>& settings) {
  json out = {{"memory_max_bytes", a.memory_max_bytes},
              {"memory_max_reason", a.memory_max_reason},
              {"memory_high_bytes", a.memory_high_bytes ? json(*a.memory_high_bytes) : json(nullptr)},
              {"memory_high_reason", a.memory_high_reason},
              {"working_set_bytes", a.working_set_bytes},
              {"peak_current_bytes", a.peak_current_bytes},
              {"climb_per_page_s", optional_json(a.climb_per_page_s)},
              {"climb_per_batch_s", optional_json(a.climb_per_batch_s)},
              {"slack_bytes", a.slack_bytes},
              {"page_cache_outside_bytes", a.page_cache_outside_bytes},
              {"vpa",
               {{"p90_bytes", a.vpa.p90_bytes},
                {"target_bytes", a.vpa.target_bytes},
                {"slack_bytes", a.vpa_slack_bytes},
                {"peaks", a.vpa.peaks},
                {"at_minimum", a.vpa.at_minimum}}},
              {"kernel", a.kernel},
              {"hz", a.hz},
              {"page_size", a.page_size},
              {"rules", a.rules.names()},
              {"regime", a.regime},
              {"notes", a.notes}};
  out["predictions"] = json::array();
  for (const advise::Prediction& p : a.predictions)
    out["predictions"].push_back({{"label", p.label}, {"working_set_bytes", p.working_set},
                                  {"verdict", verdict_json(p.verdict, "program")}});
  out["leak"] = nullptr;
  if (a.leak)
    out["leak"] = {{"basis", a.leak->basis},
                   {"growth_bytes_per_s", a.leak->growth_bytes_per_s},
                   {"seconds_to_high", optional_json(a.leak->seconds_to_high)},
                   {"seconds_to_kill_per_batch", a.leak->seconds_to_kill_per_batch},
                   {"seconds_to_kill_per_page", a.leak->seconds_to_kill_per_page}};
  out["settings"] = json::object();
  for (const advise::Setting& s : settings) out["settings"][s.manager] = s.json;
  out["inputs"] = json::array();
  for (const advise::Usage& u : inputs)
    out["inputs"].push_back({{"dir", u.dir},
                             {"working_set_bytes", u.working_set},
                             {"peak_current_bytes", u.peak_current},
                             {"duration_s", u.duration_s},
                             {"samples", u.series.size()},
                             {"growth_bytes_per_s", u.growth_bytes_per_s},
                             {"growing", u.growing},
                             {"alloc_rate_bytes_per_s", optional_json(u.alloc_rate)}});
  return out;
}

json verification_json(const advise::Verification& v, const std::vector<std::string>& args) {
  json out = {{"dir", v.dir}, {"status", v.status}, {"holds", v.holds()}, {"command", args}};
  out["checks"] = json::array();
  for (const advise::Check& c : v.checks)
    out["checks"].push_back({{"what", c.what}, {"predicted", c.predicted}, {"measured", c.measured},
                             {"holds", c.holds ? json(*c.holds) : json(nullptr)}});
  return out;
}

void print_verification(const advise::Verification& v) {
  fmt::print("\nverified under these limits: {} ({})\n", visible(v.dir), v.status);
  for (const advise::Check& c : v.checks)
    fmt::print("  {:<14} {:<5} predicted {}; measured {}\n", c.what,
               !c.holds ? "" : *c.holds ? "ok" : "FAIL", c.predicted, c.measured);
}

// Runs the input run again under the advice's limits (`cgmem run`, the one
// launcher; its progress and output go to stderr) and reads what it wrote.
Result<report::Run> rerun(const std::vector<std::string>& args) {
  ProcessSpec spec{.argv = {self_exe()}, .stdout_fd = STDERR_FILENO, .what = "cgmem advise --verify: run"};
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  auto child = Process::start(spec);
  if (!child) return std::unexpected(child.error());
  child->wait();  // a SIGINT reaches the run too: it stops and writes its outcome
  auto out = std::find(args.begin(), args.end(), "--out");
  return report::read_run(*(out + 1));
}

// --cgroup: this host's kernel, HZ, page size and swap, and the cgroup read
// every --interval for --for.
Result<advise::LiveUsage> watch_live(const Flags& f, advise::WorkingSet kind) {
  auto span = parse_duration(f.watch_for, TimeUnit::s);
  if (!span) return std::unexpected(Error{"--for: " + span.error().message()});
  auto interval = parse_duration(f.interval, TimeUnit::s);
  if (!interval) return std::unexpected(Error{"--interval: " + interval.error().message()});
  host::HostFacts facts = host::probe_host();
  catch_stop_signals();
  auto live = advise::watch_usage({.cgroup = f.cgroup,
                              .for_ns = *span,
                              .interval_ns = *interval,
                              .kind = kind,
                              .kernel = facts.kernel,
                              .hz = facts.hz.value_or(1000),
                              .page_size = facts.page_size ? facts.page_size : 4096,
                              .host_swap = facts.swap_total_bytes,
                              .stop = stop_flag(),
                              .progress = print_line_to_stderr});
  if (live && !facts.hz && !f.hz)
    live->notes.push_back("this host's CONFIG_HZ could not be read (" + facts.hz_source + "): 1000 is assumed; --hz sets it");
  return live;
}

// --prometheus: the cgroup's history through the server's HTTP API, with
// this host's kernel rules (the series do not carry them).
Result<advise::PromUsage> read_prometheus(const Flags& f, advise::WorkingSet kind) {
  auto range = parse_duration(f.range, TimeUnit::s, 8 * kDayNs);
  if (!range) return std::unexpected(Error{"--range: " + range.error().message()});
  host::HostFacts facts = host::probe_host();
  std::string base = f.prometheus;
  while (base.ends_with('/')) base.pop_back();
  auto get = [&](const std::string& path) {
    return exporter::http_get(base, path, std::chrono::seconds(30), size_t{256} << 20);
  };
  auto history = advise::prometheus_usage({.selector = f.selector,
                                           .range_s = static_cast<double>(*range) / 1e9,
                                           .end_s = static_cast<double>(std::time(nullptr)),
                                           .kind = kind,
                                           .kernel = facts.kernel,
                                           .hz = facts.hz.value_or(1000),
                                           .page_size = facts.page_size ? facts.page_size : 4096,
                                           .host_swap = facts.swap_total_bytes},
                                          get);
  if (history)
    history->notes.push_back("the kernel rules, HZ, page size and swap are this host's: --hz and --host-swap set "
                             "those of the hosts the cgroup runs on");
  return history;
}

void print_advice(const advise::Advice& a, const std::vector<advise::Usage>& inputs,
                  const std::vector<advise::Setting>& settings, bool live) {
  if (live) fmt::print("advice from a cgroup's own series\n");
  else fmt::print("advice from {} run{}\n", inputs.size(), inputs.size() == 1 ? "" : "s");
  for (const advise::Usage& u : inputs)
    fmt::print("  {}: working set {}, memory.current peak {}, {:.1f} s{}\n", visible(u.dir), format_bytes(u.working_set),
               format_bytes(u.peak_current), u.duration_s, u.growing ? ", still growing" : "");
  fmt::print("\nmemory.max   {:<12} {}\n", format_bytes(a.memory_max_bytes), a.memory_max_reason);
  fmt::print("memory.high  {:<12} {}\n", a.memory_high_bytes ? format_bytes(*a.memory_high_bytes) : "-",
             a.memory_high_reason);
  fmt::print("\nwhat they do (the kernel's arithmetic, HZ={}; {}):\n", a.hz, a.regime);
  for (const advise::Prediction& p : a.predictions)
    fmt::print("  {:<12} {:<10} {}\n", p.label, format_bytes(p.working_set), p.verdict.summary);
  if (a.leak)
    fmt::print("  {} ({}/s): OOM-killed {} after the working set at one sleep per batch, {} at one per page\n",
               a.leak->basis == "growth" ? "a leak at the runs' growth" : "a runaway at its allocation rate",
               format_bytes(static_cast<uint64_t>(a.leak->growth_bytes_per_s)),
               format_duration(a.leak->seconds_to_kill_per_batch, DurationStyle::prose),
               format_duration(a.leak->seconds_to_kill_per_page, DurationStyle::prose));
  fmt::print("\nslack {} ({:.0f}% of the working set); the VPA rule on the same samples: {} (P90 {} + 15%{}), slack {}\n",
             format_bytes(a.slack_bytes), 100.0 * static_cast<double>(a.slack_bytes) / static_cast<double>(a.working_set_bytes),
             format_bytes(a.vpa.target_bytes), format_bytes(a.vpa.p90_bytes), a.vpa.at_minimum ? ", the 250 MiB floor" : "",
             a.vpa_slack_bytes < 0 ? "-" + format_bytes(static_cast<uint64_t>(-a.vpa_slack_bytes))
                                   : format_bytes(static_cast<uint64_t>(a.vpa_slack_bytes)));
  fmt::print("\nsettings:\n");
  for (const advise::Setting& s : settings) {
    fmt::print("  {}:\n", s.manager);
    for (const std::string& line : s.lines) fmt::print("    {}\n", line);
    for (const std::string& c : s.caveats) fmt::print("    ({})\n", c);
  }
  if (!a.notes.empty()) fmt::print("\nnotes:\n");
  for (const std::string& n : a.notes) fmt::print("  - {}\n", n);
}

// One of the three inputs, and the flags that go with it; -1 when they are right.
int check_flags(const Flags& f) {
  if (f.high_margin_pct >= f.headroom_pct) {
    print_error(fmt::format("--high-margin {:g}% is not below --headroom {:g}%: memory.high must be below memory.max",
                            f.high_margin_pct, f.headroom_pct));
    return kUsage;
  }
  if (!f.dirs.empty() + !f.cgroup.empty() + !f.prometheus.empty() != 1) {
    print_error("give run directories, --cgroup PATH or --prometheus URL: one of the three");
    return kUsage;
  }
  if (f.prometheus.empty() != f.selector.empty()) {
    print_error("--prometheus and --selector go together");
    return kUsage;
  }
  if ((f.verify || f.probe) && f.dirs.empty()) {
    print_error("--verify and --probe run a recorded run again: they need run directories, not --cgroup or --prometheus");
    return kUsage;
  }
  return -1;
}

struct Inputs {
  std::vector<report::Run> runs;       // run directories' input only
  std::vector<advise::Usage> usages;
  std::vector<uint64_t> peaks;         // the VPA rule's samples
  std::vector<std::string> notes;
};

// Reads the input the flags name; -1 when read, else the exit code.
int read_inputs(const Flags& f, Inputs& in) {
  const auto kind = f.page_cache ? advise::WorkingSet::memory_current : advise::WorkingSet::without_inactive_file;
  if (!f.cgroup.empty()) {
    auto live = watch_live(f, kind);
    if (!live) return print_error(live.error()), stop_requested() ? kInterrupted : kFailure;
    in.usages.push_back(std::move(live->usage));
    in.notes = std::move(live->notes);
  } else if (!f.prometheus.empty()) {
    auto history = read_prometheus(f, kind);
    if (!history) return print_error(history.error()), kFailure;
    in.usages.push_back(std::move(history->usage));
    in.notes = std::move(history->notes);
    in.peaks = std::move(history->daily_peaks);
  } else {
    auto read = report::read_runs(f.dirs);
    if (!read) return print_error(read.error()), kFailure;
    in.runs = std::move(*read);
    for (const report::Run& run : in.runs) {
      auto u = advise::usage_of(run, kind);
      if (!u) return print_error(u.error()), kFailure;
      in.usages.push_back(std::move(*u));
    }
  }
  if (in.peaks.empty())
    for (const advise::Usage& u : in.usages) in.peaks.push_back(u.working_set);
  return -1;
}

// The run the working set came from, and its directory's base ("runs/app-r1/"
// gives "runs/app-r1": what --verify and --probe put "-verify", "-probe" on).
const report::Run& source_run(const Inputs& in, const advise::Usage& all) {
  return *std::find_if(in.runs.begin(), in.runs.end(), [&](const report::Run& r) { return r.dir == all.dir; });
}
std::string beside(const report::Run& run, const char* suffix) {
  std::string base = run.dir;
  while (base.size() > 1 && base.back() == '/') base.pop_back();
  return base + suffix;
}

// The probing run's cgroup, from its meta.json once the run has written it.
Result<std::string> cgroup_of(const std::string& dir, const Process& child) {
  for (int i = 0; i < 300 && !stop_requested(); ++i) {
    std::error_code ec;
    if (std::filesystem::exists(dir + "/meta.json", ec)) {
      auto text = read_file(dir + "/meta.json", "the probing run's meta.json");
      if (!text) return std::unexpected(text.error());
      json meta = json::parse(*text, nullptr, false);
      if (meta.is_object() && meta["cgroup"].is_string()) return meta["cgroup"].get<std::string>();
      return fail(dir + "/meta.json names no cgroup");
    }
    if (!child.running()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return fail("the probing run wrote no meta.json in " + dir);
}

// --probe: the run again without limits, its memory.high stepped down by
// the prober; the working set becomes what the probe found.
int probe_input(const Flags& f, const Inputs& in, advise::Usage& all, json& out) {
  auto interval = parse_duration(f.probe_interval, TimeUnit::s);
  if (!interval) return print_error("--probe-interval: " + interval.error().message()), kUsage;
  const report::Run& input = source_run(in, all);
  std::string dir = std::filesystem::absolute(beside(input, "-probe")).lexically_normal().string();
  auto args = advise::rerun_args(input, {}, dir, (input.meta.name.empty() ? std::string("advise") : input.meta.name) + "-probe",
                                 false);
  catch_stop_signals();
  ProcessSpec spec{.argv = {self_exe()}, .stdout_fd = STDERR_FILENO, .what = "cgmem advise --probe: run"};
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  auto child = Process::start(spec);
  if (!child) return print_error(child.error()), kFailure;
  auto cgroup = cgroup_of(dir, *child);
  if (!cgroup) {
    child->signal(SIGINT);
    child->wait();
    return print_error(cgroup.error()), kFailure;
  }
  auto probe = advise::probe({.cgroup = *cgroup,
                           .driver = child->pid(),
                           .run_dir = dir,
                           .start_high = all.peak_current,
                           .page_size = all.page_size,
                           .interval_ns = *interval,
                           .threshold = f.probe_threshold_pct / 100,
                           // poll() reaps once; running() stays false after.
                           .running = [&] { return !child->poll() && child->running(); },
                           .stop = stop_flag(),
                           .progress = print_line_to_stderr});
  child->signal(SIGINT);  // the probe is done: the run stops and removes its cgroup
  child->wait();
  if (!probe) return print_error(probe.error()), stop_requested() ? kInterrupted : kFailure;
  out = {{"dir", dir}, {"threshold", f.probe_threshold_pct / 100}, {"interval_s", static_cast<double>(*interval) / 1e9},
         {"converged", probe->converged},
         {"working_set_bytes", probe->working_set ? json(*probe->working_set) : json(nullptr)}, {"steps", json::array()}};
  for (const advise::ProbeStep& s : probe->steps)
    out["steps"].push_back({{"t_s", s.t_s}, {"memory_high", s.memory_high}, {"memory_current", s.memory_current},
                            {"stalled_ms", s.stalled_ms}, {"pressure", s.pressure}});
  if (!probe->working_set) {
    print_error("--probe: no interval passed without pressure, even at the run's peak: its working set is not found");
    return kFailure;
  }
  all.working_set = *probe->working_set;
  return -1;
}

// --verify: the run the working set came from, run again under the advice.
int verify_advice(const Flags& f, const advise::Advice& a, const advise::Usage& all, const Inputs& in, json& out) {
  auto from = [&](const auto& list) { return std::find_if(list.begin(), list.end(), [&](const auto& x) { return x.dir == all.dir; }); };
  const report::Run& input = *from(in.runs);
  const advise::Usage& usage = *from(in.usages);
  std::string dir = f.verify_out.empty() ? beside(input, "-verify") : f.verify_out;
  auto args = advise::rerun_args(input, a, dir, (input.meta.name.empty() ? std::string("advise") : input.meta.name) + "-verify");
  catch_stop_signals();
  auto limited = rerun(args);
  if (!limited) return print_error(limited.error()), stop_requested() ? kInterrupted : kFailure;
  advise::Verification v = advise::verify(a, usage, input, *limited);
  out["verify"] = verification_json(v, args);
  if (!f.json) print_verification(v);
  return stop_requested() ? kInterrupted : v.holds() ? kOk : kFailure;
}

}  // namespace

int run_advise(std::span<char*> args) {
  CLI::App app("The memory.high and memory.max to set for a program, from runs of it without limits, with what "
               "the kernel will do to it (docs/advise.md).",
               "advise");
  Flags f;
  app.add_option("RUN", f.dirs, "run directories recorded without limits (cgmem run), or batch directories");
  app.add_option("--cgroup", f.cgroup, "instead of runs: watch this live cgroup2 directory (reads only)");
  app.add_option("--for", f.watch_for, "with --cgroup: how long to watch it (SIGINT ends it early)")
      ->capture_default_str()
      ->check(duration_validator(TimeUnit::s));
  app.add_option("--interval", f.interval, "with --cgroup: how often to read it")
      ->capture_default_str()
      ->check(duration_validator(TimeUnit::s));
  app.add_option("--prometheus", f.prometheus,
                 "instead of runs: a Prometheus server that scrapes cgmem exporter (http://HOST:PORT)");
  app.add_option("--selector", f.selector, "with --prometheus: the one cgroup's label matchers, {cgroup=\"...\"}");
  app.add_option("--range", f.range, "with --prometheus: how far back to read (at most 8d: the VPA's window)")
      ->capture_default_str()
      ->check(duration_validator(TimeUnit::s, 8 * kDayNs));
  app.add_option("--headroom", f.headroom_pct, "memory.max over the working set, percent")
      ->capture_default_str()
      ->check(CLI::Range(1.0, 1000.0));
  app.add_option("--high-margin", f.high_margin_pct, "memory.high at least this far over the working set, percent")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1000.0));
  app.add_option("--crawl", f.crawl,
                 "the longest a runaway program may crawl from memory.high to memory.max at one sleep per page")
      ->capture_default_str()
      ->check(duration_validator(TimeUnit::s));
  app.add_option("--hz", f.hz, "CONFIG_HZ of the hosts the limits are for (default: the runs' host's)")
      ->check(whole_number(10, 10000));
  app.add_option("--host-swap", f.host_swap, "swap those hosts give (default: the runs' host's)")
      ->check(size_validator({}));
  app.add_option("--kubernetes-version", f.kubernetes_minor, "the kubelet's 1.MINOR for the Kubernetes settings")
      ->capture_default_str()
      ->check(CLI::Range(22, 37));
  app.add_flag("--page-cache", f.page_cache,
               "the working set is all of memory.current, page cache included (default: without inactive_file, "
               "as cAdvisor and the VPA)");
  app.add_flag("--verify", f.verify,
               "run the program again the way its run was made (meta.json's workload flags or --command), under "
               "the recommended limits, and check what advise predicted");
  app.add_option("--verify-out", f.verify_out, "the verifying run's directory (default: RUN-verify beside the run)");
  app.add_flag("--probe", f.probe,
               "measure the working set: run the program again without limits and step its memory.high down while "
               "memory PSI stays quiet (senpai's method; the run's own cgroup only)");
  app.add_option("--probe-threshold", f.probe_threshold_pct,
                 "with --probe: the stalled share of an interval that is pressure, percent")
      ->capture_default_str()
      ->check(CLI::Range(0.01, 50.0));
  app.add_option("--probe-interval", f.probe_interval, "with --probe: how long each memory.high is held")
      ->capture_default_str()
      ->check(duration_validator(TimeUnit::s));
  app.add_flag("--json", f.json, "print JSON");
  if (int code = parse(app, args); code >= 0) return code;

  auto crawl = parse_duration(f.crawl, TimeUnit::s);
  if (!crawl) return print_error("--crawl: " + crawl.error().message()), kUsage;
  if (int code = check_flags(f); code >= 0) return code;
  Inputs in;
  if (int code = read_inputs(f, in); code >= 0) return code;
  auto all = advise::combined(in.usages);
  if (!all) return print_error(all.error()), kFailure;
  json probed;
  const uint64_t usage_working_set = all->working_set;
  if (f.probe)
    if (int code = probe_input(f, in, *all, probed); code >= 0) return code;
  advise::Options o{.headroom = f.headroom_pct / 100,
                    .high_margin = f.high_margin_pct / 100,
                    .crawl_s = static_cast<double>(*crawl) / 1e9,
                    .hz = f.hz};
  if (!f.host_swap.empty()) o.host_swap = limit_from(f.host_swap, {}).bytes();
  advise::Advice a = advise::recommend(*all, in.peaks, o);
  a.notes.insert(a.notes.begin(), in.notes.begin(), in.notes.end());
  if (f.probe)
    a.notes.insert(a.notes.begin(),
                   fmt::format("the working set is the probe's: {}, the lowest memory.high an interval passed with "
                               "memory PSI some at or under {:g}%{}; usage alone gave {}",
                               format_bytes(all->working_set), f.probe_threshold_pct,
                               probed["converged"].get<bool>() ? "" : " (the run ended before pressure came)",
                               format_bytes(usage_working_set)));
  auto settings = advise::settings_for(a, {.working_set = a.working_set_bytes, .kubernetes_minor = f.kubernetes_minor});
  json out = advice_json(a, in.usages, settings);
  if (f.probe) out["probe"] = probed;
  if (!f.json) print_advice(a, in.usages, settings, f.dirs.empty());
  int code = f.verify ? verify_advice(f, a, *all, in, out) : kOk;
  if (f.json) fmt::print("{}", report::dump_json(out));
  return code;
}

}  // namespace cgmem::cli
