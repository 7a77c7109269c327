// `cgmem exporter`: the watch scan as Prometheus metrics. One thread scans
// (exporter/collector.h), the HTTP workers serve its last page
// (exporter/server.h). SIGTERM or SIGINT stops both and exits 0.
#include <pthread.h>
#include <unistd.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <thread>

#include "cli/app.h"
#include "cli/cmd_watch_scan.h"
#include "cli/signals.h"
#include "cli/handlers.h"
#include "common/exit_codes.h"
#include "exporter/collector.h"
#include "exporter/server.h"
#include "common/text.h"
#include "common/duration.h"
#include "watch/render.h"

namespace cgmem::cli {
namespace {

struct ExporterFlags {
  std::string listen = "127.0.0.1:9262";
  // What a fleet's Prometheus can afford per host: 12,000 series is 255
  // cgroups (a Kubernetes node at the kubelet's 110 pods), about 43 GiB of
  // Prometheus heap for 1,000 hosts at the 3.6 KB a series measured
  // (docs/fleet.md).
  size_t max_series = 12'000;
  std::string kill_retention = "10m";
  size_t workers = 4;
  std::string timeout = "10s";
  std::string proc_root = "/proc";
  bool once = false, openmetrics = false, json = false;
};

// --once: two scans an interval apart (so rates and states are there), one page to stdout.
int print_once(exporter::Collector& collector, const ExporterFlags& f) {
  usleep(useconds_t(collector.interval_ns() / 1000));
  if (f.openmetrics) collector.want(exporter::Format::openmetrics);
  if (auto r = collector.scan(cgmem::now_ns()); !r) return print_error(r.error()), kFailure;
  auto page = collector.page();
  const std::string& body = f.openmetrics ? page->openmetrics : page->text;
  int code = kOk;
  if (const auto& nothing = collector.nothing_to_watch()) {
    say_nothing_to_watch("exporter", *nothing, true);
    code = kNoMemoryController;
  }
  if (!f.json) {
    fmt::print("{}", body);
    return code;
  }
  const watch::ScanStats& s = collector.scanner().stats();
  nlohmann::json j = {{"format", f.openmetrics ? "openmetrics" : "text"},
                      {"series", page->series},
                      {"bytes", body.size()},
                      {"cgroups", s.reported},
                      {"dropped", s.dropped},
                      {"preopened", s.preopened},
                      {"open_files", s.files_held + s.dirs_held},
                      {"memory_controller_usable", !collector.nothing_to_watch()}};
  if (const auto& nothing = collector.nothing_to_watch()) j["reason"] = *nothing;
  fmt::print("{}\n", watch::json_line(j));
  return code;
}

int serve(exporter::Collector& collector, exporter::Server& server, const ExporterFlags& f, const std::string& root,
          const std::string& host) {
  // The HTTP threads never take SIGTERM: it must reach this thread, which stops them.
  sigset_t stops, old;
  sigemptyset(&stops);
  for (int s : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&stops, s);
  pthread_sigmask(SIG_BLOCK, &stops, &old);
  std::thread http([&server] { server.serve(); });
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  catch_stop_signals();

  std::string address = host.find(':') != std::string::npos ? "[" + host + "]" : host;
  address += ":" + std::to_string(server.port());
  const watch::ScanStats& s = collector.scanner().stats();
  if (f.json) {
    fmt::print("{}\n", watch::json_line(nlohmann::json{{"listen", address},
                                       {"root", root},
                                       {"cgroups", s.reported},
                                       {"dropped", s.dropped},
                                       {"interval_s", double(collector.interval_ns()) / 1e9},
                                       {"pid", getpid()}}));
  } else {
    fmt::print("cgmem exporter: serving http://{}/metrics ({} cgroups under {}, a scan every {:g} s)\n", address,
               s.reported, visible(root), double(collector.interval_ns()) / 1e9);
  }
  std::fflush(stdout);
  auto ran = collector.run(stop_requested);
  server.stop();
  http.join();
  if (!ran) return print_error(ran.error()), kFailure;
  return kOk;
}

}  // namespace

int run_exporter(std::span<char*> args) {
  CLI::App app(
      "Serve what `cgmem watch` sees as Prometheus metrics: /metrics (the text format, or OpenMetrics\n"
      "when the scraper asks for it) and /healthz. Every cgroup's memory.current/high/max/swap, its\n"
      "memory.events and PSI counters, its state (0/1 per state), throttle sleeps, one sleep's\n"
      "length and the projected time to memory.max; OOM kills are caught when they happen and kept\n"
      "after the cgroup is gone. Reads only. See docs/fleet.md.",
      "exporter");
  TreeFlags tree;
  tree.interval = "10s";
  add_tree_flags(app, tree);
  ExporterFlags f;
  app.add_option("--listen", f.listen, "HOST:PORT to serve on (port 0: any free port)")->capture_default_str();
  app.add_option("--max-series", f.max_series,
                 fmt::format("at most this many cgroup series: cgroups beyond max-series/{} are left out "
                             "and counted (cgmem_exporter_cgroups_dropped)",
                             exporter::max_series_per_cgroup()))
      ->capture_default_str()
      ->transform(whole_number(1, uint64_t(1) << 40));
  app.add_option("--kill-retention", f.kill_retention, "keep an OOM-killed cgroup's kill count this long after it is gone")
      ->capture_default_str()
      ->check(duration_validator(TimeUnit::s));
  app.add_option("--workers", f.workers, "requests served at once (a connection gets a worker only once its request is in)")
      ->capture_default_str()
      ->transform(whole_number(1, 64));
  app.add_option("--timeout", f.timeout, "a connection's whole life: its request in and the response out (docs/fleet.md)")
      ->capture_default_str()
      ->check(duration_validator(TimeUnit::s));
  app.add_option("--proc-root", f.proc_root, "where the tasks' /proc/PID/stat and wchan are read (a container: the host's /proc)")
      ->capture_default_str();
  app.add_flag("--once", f.once, "print one page to stdout (two scans an interval apart) and exit");
  app.add_flag("--openmetrics", f.openmetrics, "with --once: the OpenMetrics format");
  app.add_flag("--json", f.json,
               "serving: one JSON line on stdout with the address; with --once: series, bytes and "
               "cgroups as JSON instead of the page");
  if (int code = parse(app, args); code >= 0) return code;

  auto retention = parse_duration(f.kill_retention, TimeUnit::s);
  auto timeout = parse_duration(f.timeout, TimeUnit::s);
  if (!retention) return print_error(retention.error()), kUsage;
  if (!timeout) return print_error(timeout.error()), kUsage;
  auto listen = exporter::parse_listen(f.listen);
  if (!listen) return print_error(listen.error()), kUsage;
  TreeSetup setup = live_setup(tree);
  if (setup.exit_code) return setup.exit_code;
  if (setup.interval_ns == 0) return print_error("--interval must be more than 0"), kUsage;

  setup.options.proc_root = f.proc_root;
  std::string root = setup.options.root;
  auto collector = exporter::Collector::open({.scan = std::move(setup.options),
                                              .interval_ns = setup.interval_ns,
                                              .kill_retention_ns = *retention,
                                              .max_series = f.max_series,
                                              .memory_v1_mount = setup.memory_v1_mount});
  if (!collector) return print_error(collector.error()), f.max_series < exporter::max_series_per_cgroup() ? kUsage : kFailure;
  // The first scan finds the tree and takes the samples rates start from.
  if (auto r = (*collector)->scan(cgmem::now_ns()); !r) return print_error(r.error()), kFailure;
  if (f.once) return print_once(**collector, f);
  if (const auto& nothing = (*collector)->nothing_to_watch()) say_nothing_to_watch("exporter", *nothing, false);

  if (!exporter::has_http_server()) {
    print_error(Error{.what = "serve /metrics: this is cgmem-static, and Debian's cpp-httplib is a shared "
                              "library only (libcpp-httplib.so), so it has no HTTP server",
                      .hint = "run cgmem (the dynamically linked one beside it) for `cgmem exporter`; --once works here"});
    return kUnavailable;
  }
  auto server = exporter::Server::bind(**collector, {.listen = *listen,
                                                     .workers = f.workers,
                                                     .timeout_s = int(std::max<uint64_t>(*timeout / 1'000'000'000, 1))});
  if (!server) return print_error(server.error()), kFailure;
  return serve(**collector, **server, f, root, listen->host);
}

}  // namespace cgmem::cli
