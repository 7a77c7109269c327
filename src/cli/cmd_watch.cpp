// `cgmem watch`: scan a cgroup2 tree every interval and say which cgroups
// are throttled, thrashing, at their limit or killed, with the evidence.
// JSON lines for machines (docs/watch.md), a line per cgroup that is not ok
// for people; a snapshot to save a tree and replay it later.
#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fmt/format.h>
#include <unordered_map>

#include "common/clock.h"
#include "host/probe.h"
#include "cli/app.h"
#include "cli/cmd_watch_scan.h"
#include "cli/signals.h"
#include "common/exit_codes.h"
#include "common/text.h"
#include "cli/handlers.h"
#include "watch/render.h"
#include "watch/snapshot.h"

namespace cgmem::cli {
namespace {

using watch::Row;
using watch::State;

struct Output {
  bool json = false;
  bool all = false;  // text: ok cgroups too

  void rows(std::span<const Row> rows, double when) const {
    if (json) {
      for (const Row& r : rows) fmt::print("{}\n", watch::json_line(watch::row_json(r, when)));
    } else {
      for (const Row& r : rows) text(r, when);
    }
    std::fflush(stdout);
  }

  void text(const Row& r, double when) const {
    if (!all && (r.state == State::ok || (r.reasons & watch::kFirstSample))) return;
    time_t seconds = time_t(when);
    tm local{};
    localtime_r(&seconds, &local);
    auto evidence = watch::describe(r);
    fmt::print("{:02}:{:02}:{:02} {:<10} {}{}  {}\n", local.tm_hour, local.tm_min, local.tm_sec,
               watch::state_name(r.state), visible(r.path), r.from_event ? " (event)" : "",
               fmt::join(evidence, "; "));
  }
};

int write_snapshot(const std::string& out, const TreeSetup& setup, const Output& output) {
  if (std::filesystem::exists(out)) {
    print_error(Error{.what = "write the snapshot: " + out + " already exists",
                      .hint = "give a new directory"});
    return kUsage;
  }
  std::string tmp = fmt::format("{}.tmp-{}", out, getpid());
  auto fail_with = [&](const Error& e) {
    std::error_code ignored;
    std::filesystem::remove_all(tmp, ignored);
    print_error(e);
    return kFailure;
  };
  // Everything the snapshot writes is made below this one descriptor.
  if (::mkdir(tmp.c_str(), 0755) != 0) {
    print_error(sys_error("create the snapshot directory", tmp, "check that its parent is writable").error());
    return kFailure;
  }
  Fd tmp_fd(::open(tmp.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!tmp_fd.valid()) return fail_with(sys_error("open the snapshot directory", tmp).error());
  auto scanner = watch::Scanner::open(setup.options);
  if (!scanner) return fail_with(scanner.error());
  watch::SnapshotMeta meta;
  meta.root = setup.options.root;
  meta.kernel_facts = setup.options.kernel;
  host::HostFacts facts = host::probe_host();
  meta.kernel = facts.kernel;
  meta.hz_source = facts.hz_source;
  std::span<const Row> rows;
  for (int i = 0; i < 2; ++i) {
    if (i == 1) usleep(useconds_t(setup.interval_ns / 1000));
    meta.t_ns[i] = cgmem::now_ns();
    meta.unix_time[i] = unix_time_s();
    auto scanned = (*scanner)->scan(meta.t_ns[i]);
    if (!scanned) return fail_with(scanned.error());
    rows = *scanned;
    if (auto r = watch::copy_sample(**scanner, rows, tmp_fd.get(), std::to_string(i), setup.options.proc_root); !r)
      return fail_with(r.error());
  }
  if (auto r = watch::write_snapshot_meta(tmp, meta); !r) return fail_with(r.error());
  std::error_code ec;
  std::filesystem::rename(tmp, out, ec);
  if (ec) return fail_with(Error{.what = "rename " + tmp + " to " + out + ": " + ec.message()});
  output.rows(rows, meta.unix_time[1]);
  fmt::print(stderr, "cgmem watch: wrote {} ({} cgroups, 2 samples {:.2f} s apart)\n", out, rows.size(),
             double(meta.t_ns[1] - meta.t_ns[0]) / 1e9);
  return kOk;
}

int watch_live(const TreeSetup& setup, unsigned count, bool events, const Output& output) {
  watch::ScanOptions options = setup.options;
  options.events = events;
  auto opened = watch::Scanner::open(std::move(options));
  if (!opened) return print_error(opened.error()), kFailure;
  watch::Scanner& scanner = **opened;
  catch_stop_signals();
  // The first scan only finds the tree and takes the samples rates start from.
  auto first = scanner.scan(cgmem::now_ns());
  if (!first) return print_error(first.error()), kFailure;
  if (auto reason = nothing_to_watch(setup, first->size())) {
    say_nothing_to_watch("watch", *reason, count > 0);
    if (output.json) fmt::print("{}\n", watch::json_line(nothing_to_watch_json(setup.options.root, *reason, unix_time_s())));
    std::fflush(stdout);
    if (count > 0) return kNoMemoryController;
  }
  std::unordered_map<uint64_t, State> last;  // state last printed, per cgroup
  uint64_t next = cgmem::now_ns() + setup.interval_ns;
  unsigned printed = 0;
  while (!stop_requested() && (count == 0 || printed < count)) {
    uint64_t now = cgmem::now_ns();
    if (now < next) {
      pollfd fd{scanner.event_fd(), POLLIN, 0};
      int timeout_ms = int((next - now + 999999) / 1000000);
      if (::poll(&fd, fd.fd >= 0 ? 1 : 0, timeout_ms) > 0) {
        // An event line only when the event changed the cgroup's state.
        std::vector<Row> changed;
        for (const Row& r : scanner.scan_events(cgmem::now_ns())) {
          auto& seen = last[r.id];
          if (seen != r.state) changed.push_back(r), seen = r.state;
        }
        output.rows(changed, unix_time_s());
      }
      continue;
    }
    auto rows = scanner.scan(now);
    if (!rows) return print_error(rows.error()), kFailure;
    for (const Row& r : *rows) last[r.id] = r.state;
    output.rows(*rows, unix_time_s());
    ++printed;
    next += setup.interval_ns;
    if (next < now) next = now + setup.interval_ns;  // a slow scan: no burst to catch up
  }
  return stop_requested() ? kInterrupted : kOk;
}

}  // namespace

int run_watch(std::span<char*> args) {
  CLI::App app(
      "Watch a cgroup2 tree: every interval, which cgroups are throttled by memory.high, thrashing,\n"
      "swapping, at memory.max or OOM-killed, with the counters that show it and the model's\n"
      "forecast (time to memory.max, one sleep's length). Reads only; never writes a cgroup file.\n"
      "Without --json, prints a line for each cgroup that is not ok. See docs/watch.md.",
      "watch");
  TreeFlags flags;
  add_tree_flags(app, flags);
  Output output;
  unsigned count = 0;
  bool no_events = false;
  std::string snapshot, once;
  app.add_flag("--json", output.json, "one JSON line per cgroup per interval and per event");
  app.add_flag("--all", output.all, "text: print ok cgroups too");
  app.add_option("--count", count, "stop after N intervals (default: until SIGINT)");
  app.add_flag("--no-events", no_events, "scan on the interval only (no inotify on memory.events)");
  app.add_option("--snapshot", snapshot, "save the tree, read twice an interval apart, to this new directory");
  app.add_option("--once", once, "classify a saved snapshot directory and exit");
  app.get_option("--once")->excludes("--snapshot");
  if (int code = parse(app, args); code >= 0) return code;
  // An empty value is a mistake (an unset shell variable), not "watch live".
  for (const char* flag : {"--once", "--snapshot"}) {
    if (app.count(flag) && (std::string_view(flag) == "--once" ? once : snapshot).empty()) {
      print_error(fmt::format("{} needs a directory", flag));
      return kUsage;
    }
  }

  if (!once.empty()) {
    auto replay = replay_snapshot(once, flags);
    if (!replay) return print_error(replay.error()), kFailure;
    output.rows(replay->rows, replay->meta.unix_time[1]);
    return kOk;
  }
  TreeSetup setup = live_setup(flags);
  if (setup.exit_code) return setup.exit_code;
  if (!snapshot.empty()) return write_snapshot(snapshot, setup, output);
  return watch_live(setup, count, !no_events, output);
}

}  // namespace cgmem::cli
