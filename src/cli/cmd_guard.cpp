// `cgmem guard`: watch a cgroup2 subtree and act by a written policy (kill,
// raise memory.high, emulate the RFC's memory.high.throttle, report), every
// decision a JSON line with its evidence. Dry run unless --act. The logic and
// the loop are in src/guard (guard/daemon.h); this file is the flags and the
// lines.
#include <time.h>

#include <fmt/format.h>

#include "cli/app.h"
#include "cli/cmd_watch_scan.h"
#include "cli/signals.h"
#include "cli/handlers.h"
#include "common/clock.h"
#include "common/duration.h"
#include "common/exit_codes.h"
#include "common/text.h"
#include "guard/act.h"
#include "guard/daemon.h"
#include "guard/decide.h"
#include "guard/line.h"
#include "guard/policy.h"
#include "watch/render.h"

namespace cgmem::cli {
namespace {

struct Settings {
  bool act = false;
  bool json = false;
  unsigned count = 0;  // intervals; 0: until SIGTERM/SIGINT
};

void print_decision(const guard::Decision& d, const guard::ActResult& o, const Settings& s) {
  double when = unix_time_s();
  if (s.json) {
    fmt::print("{}\n", watch::json_line(guard::decision_json(d, o, !s.act, when)));
  } else {
    time_t seconds = time_t(when);
    tm local{};
    localtime_r(&seconds, &local);
    fmt::print("{:02}:{:02}:{:02} {}\n", local.tm_hour, local.tm_min, local.tm_sec, guard::decision_text(d, o));
  }
  std::fflush(stdout);
}

int guard_loop(const guard::Policy& policy, const TreeSetup& setup, const Settings& s) {
  auto opened = watch::Scanner::open(setup.options);
  if (!opened) return print_error(opened.error()), kFailure;
  watch::Scanner& scanner = **opened;
  guard::CgroupActor actor(setup.options.root, setup.options.kernel.rules);
  guard::Daemon daemon(policy, setup.options.kernel, actor, monotonic_clock(),
                       {.act = s.act, .count = s.count, .interval_ns = setup.interval_ns});
  catch_stop_signals();
  fmt::print(stderr, "cgmem guard: {} rule{} on {} every {}{}\n", policy.rules.size(),
             policy.rules.size() == 1 ? "" : "s", visible(setup.options.root),
             format_duration(double(setup.interval_ns) / 1e9, DurationStyle::compact),
             s.act ? "; acting" : "; dry run: nothing is changed (--act to act)");
  bool first = true;
  auto scan = [&](uint64_t now) {
    auto rows = scanner.scan(now);
    if (rows && first)
      if (auto reason = nothing_to_watch(setup, rows->size())) say_nothing_to_watch("guard", *reason, false);
    first = false;
    return rows;
  };
  auto ran = daemon.run(scan, [&](const guard::Decision& d, const guard::ActResult& o) { print_decision(d, o, s); },
                        stop_requested);
  if (!ran) return print_error(ran.error()), kFailure;
  if (stop_requested()) fmt::print(stderr, "cgmem guard: stopped by a signal\n");
  return kOk;
}

}  // namespace

int run_guard(std::span<char*> args) {
  CLI::App app(
      "Guard a cgroup2 subtree by a written policy: kill a cgroup that crawls over memory.high or\n"
      "thrashes, raise memory.high for a service that should get room (and restore it), kill when the\n"
      "RFC's memory.high.throttle = S would have, or only report. Every decision is a line with the\n"
      "rule, the counters and the model's prediction behind it. Dry run unless --act; never acts on\n"
      "the root, outside it, or on a cgroup no rule matches. See docs/guard.md.",
      "guard");
  TreeFlags flags;
  // Every file at every scan: the guard acts on the limits it reads, its
  // own writes to memory.high included, which move no sentinel.
  flags.full_read_every = "0";
  add_tree_flags(app, flags);
  std::string policy_path;
  Settings s;
  bool check = false;
  app.add_option("--policy", policy_path, "the policy (TOML, docs/guard.md)")->required();
  app.add_flag("--act", s.act, "carry decisions out (default: a dry run that only logs them)");
  app.add_flag("--json", s.json, "one JSON line per decision (the evidence)");
  app.add_option("--count", s.count, "stop after N intervals (default: until SIGTERM)");
  app.add_flag("--check", check, "read the policy, print its rules and exit");
  if (int code = parse(app, args); code >= 0) return code;

  auto policy = guard::load_policy(policy_path);
  if (!policy) return print_error(policy.error()), kUsage;
  if (check) {
    for (const auto& r : policy->rules)
      fmt::print("{:<16} {:<14} match {}\n", r.name, guard::action_name(r.action), r.match.text());
    return kOk;
  }
  if (s.act && flags.root.empty()) {
    print_error(Error{.what = "--act without --root: the guard acts only inside a subtree it is given",
                      .hint = "pass --root /sys/fs/cgroup/SUBTREE (the rules match paths below it)"});
    return kUsage;
  }
  TreeSetup setup = live_setup(flags);
  if (setup.exit_code) return setup.exit_code;
  return guard_loop(*policy, setup, s);
}

}  // namespace cgmem::cli
