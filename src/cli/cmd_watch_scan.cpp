#include "cli/cmd_watch_scan.h"

#include <time.h>

#include <cmath>
#include <fmt/format.h>

#include "host/rules.h"
#include "host/probe.h"
#include "host/watchable.h"
#include "common/text.h"
#include "cli/app.h"
#include "common/exit_codes.h"
#include "common/duration.h"

namespace cgmem::cli {

void add_tree_flags(CLI::App& app, TreeFlags& f) {
  app.add_option("--root", f.root, "the cgroup2 directory to watch (default: the cgroup2 mount)");
  app.add_option("--depth", f.depth, "levels below the root to walk (default: all)")
      ->check(CLI::Range(0, 1000));
  app.add_option("--match", f.match, "only cgroups whose path below the root matches this regex");
  app.add_option("--interval", f.interval, "time between scans (100ms, 2s; a bare number is seconds)")
      ->capture_default_str()
      ->check(duration_validator(TimeUnit::s));
  app.add_option("--hz", f.hz, "the kernel's CONFIG_HZ for forecasts (default: read from the host)")
      ->check(CLI::IsMember({100u, 250u, 300u, 1000u}));
  app.add_option("--full-read-every", f.full_read_every,
                 "a cgroup whose memory.current and memory.events did not move is read in full at least this "
                 "often, its other files carried in between (0: every file at every scan)")
      ->capture_default_str()
      ->check(CLI::Validator([](std::string& text) { return text == "0" ? std::string() : duration_validator(TimeUnit::s)(text); },
                             "DURATION"));
  app.add_option("--max-open-files", f.max_open_files,
                 "control files and directories kept open between scans at most (within the open-file limit), "
                 "each about a page of kernel memory charged to this process's cgroup once read")
      ->capture_default_str()
      ->check(CLI::Range(size_t{1}, size_t{1} << 24));
}

TreeSetup live_setup(const TreeFlags& flags) {
  TreeSetup setup;
  auto interval = parse_duration(flags.interval, TimeUnit::s);
  if (!interval) {
    print_error(interval.error());
    setup.exit_code = kUsage;
    return setup;
  }
  setup.interval_ns = *interval;
  auto full_read_every = flags.full_read_every == "0" ? Result<uint64_t>(0) : parse_duration(flags.full_read_every, TimeUnit::s);
  if (!full_read_every) {
    print_error(full_read_every.error());
    setup.exit_code = kUsage;
    return setup;
  }
  auto match = Pattern::compile(flags.match, "--match");
  if (!match) {
    print_error(match.error());
    setup.exit_code = kUsage;
    return setup;
  }
  host::HostFacts facts = host::probe_host();
  watch::ScanOptions& o = setup.options;
  o.root = flags.root;
  if (o.root.empty()) {
    if (!facts.cgroup2_mount) {
      std::string what = "find the cgroup2 tree to watch: no cgroup2 file system is mounted here";
      if (facts.memory_v1_mount) what += "; memory is bound to cgroup v1 (mounted at " + *facts.memory_v1_mount + ")";
      print_error(Error{.what = what, .hint = "pass --root DIR, or run it in cgmem's VM: cgmem vm -- watch"});
      setup.exit_code = kNoMemoryController;
      return setup;
    }
    o.root = *facts.cgroup2_mount;
  }
  setup.memory_v1_mount = facts.memory_v1_mount;
  o.max_depth = flags.depth;
  o.match = std::move(*match);
  o.full_read_every_ns = *full_read_every;
  o.max_open_files = flags.max_open_files;
  if (facts.page_size) o.kernel.page_size = facts.page_size;
  if (facts.hz) o.kernel.hz = *facts.hz;
  if (flags.hz) o.kernel.hz = flags.hz;
  o.kernel.rules = host::kernel_rules(facts.kernel, host::read_stock_slots());
  return setup;
}

Result<watch::Replay> replay_snapshot(const std::string& dir, const TreeFlags& flags) {
  auto match = Pattern::compile(flags.match, "--match");
  if (!match) return std::unexpected(match.error());
  watch::ScanOptions o{.max_depth = flags.depth, .match = std::move(*match)};
  o.kernel.hz = flags.hz;
  return watch::replay_snapshot(dir, std::move(o), flags.hz != 0);
}

std::optional<std::string> nothing_to_watch(const TreeSetup& setup, size_t rows) {
  if (rows > 0) return std::nullopt;
  return host::no_memory_controller(setup.options.root, setup.options.max_depth, setup.memory_v1_mount);
}

void say_nothing_to_watch(std::string_view command, const std::string& reason, bool error) {
  if (error) return print_error(Error{.what = std::string(command) + ": nothing to watch: " + reason,
                                      .hint = host::kNoMemoryHint});
  fmt::print(stderr, "cgmem {}: warning: nothing to watch yet: {} ({})\n", command, visible(reason),
             host::kNoMemoryHint);
}

nlohmann::json nothing_to_watch_json(const std::string& root, const std::string& reason, double unix_time_s) {
  return {{"t", std::round(unix_time_s * 1000) / 1000},
          {"root", root},
          {"memory_controller_usable", false},
          {"reason", reason}};
}

}  // namespace cgmem::cli
