// cgmem kernel: kernels of cgmem's own, built from Debian's linux-source-6.12
// or a tree given with --source (src/kernel/, docs/kernel.md).
//   cgmem kernel build [--hz N] [--patch NAME]... [--source TARBALL|DIR] [--jobs N] [--plan]
//                                          build one (or find it cached); --plan configures only
//   cgmem kernel list                      what the cache holds
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include <thread>

#include "cli/app.h"
#include "common/duration.h"
#include "common/exit_codes.h"
#include "cli/handlers.h"
#include "cli/signals.h"
#include "kernel/build.h"
#include "kernel/source.h"
#include "vm/kernel.h"

namespace cgmem::cli {

namespace {

struct BuildArgs {
  int hz = 1000;
  std::vector<std::string> patches;
  std::string source;
  unsigned jobs = 0;
  bool force = false, plan = false;
};

std::string patches_text(const std::vector<std::string>& patches) {
  return patches.empty() ? "-" : fmt::format("{}", fmt::join(patches, ","));
}

nlohmann::json entry_json(const kernel::Entry& e, const std::optional<std::string>& current_key) {
  auto j = nlohmann::json::parse(kernel::entry_json(e));
  j["dir"] = e.dir;
  j["image"] = e.image();
  if (current_key) j["current"] = e.key == *current_key;
  return j;
}

// "compile: 412 of ~1130 files, 2:13" redrawn on a terminal, a line every
// 30 s otherwise (a log, CI).
kernel::BuildEvents progress_events(bool quiet) {
  kernel::BuildEvents events;
  if (quiet) return events;
  bool tty = isatty(2);
  events.step = [](const std::string& step) { fmt::print(stderr, "cgmem kernel: {}\n", step); };
  events.note = events.step;
  events.compiling = [tty, last = -30.0](uint64_t done, uint64_t expected, double seconds) mutable {
    if (!tty && seconds - last < 30) return;
    last = seconds;
    std::string of = expected ? fmt::format(" of ~{}", expected) : "";
    std::string line = fmt::format("cgmem kernel: compile: {}{} files, {}", done, of, format_duration(seconds, DurationStyle::clock));
    if (tty) fmt::print(stderr, "\r{}   ", line);
    else fmt::print(stderr, "{}\n", line);
  };
  return events;
}

// What --plan found: the inputs, the patches applied or skipped, and that
// the tree configured; nothing was compiled or cached.
int print_plan(const kernel::BuildResult& plan, bool json) {
  const auto& e = plan.entry;
  if (json) {
    fmt::print("{}\n", nlohmann::json{{"name", e.name}, {"key", e.key}, {"version", e.version}, {"hz", e.hz},
                                      {"source", e.source}, {"source_version", e.source_version},
                                      {"patches", e.patches}, {"upstream", e.upstream},
                                      {"dir", e.dir}, {"cached", plan.cached},
                                      {"config_hz", kernel::config_hz(plan.config)}}
                           .dump(2));
    return kOk;
  }
  fmt::print("name     {}\nversion  {}\nkey      {}\nsource   {}\n", e.name, e.version, e.key, e.source);
  fmt::print("patches  {}\nupstream {}\n", patches_text(e.patches), patches_text(e.upstream));
  fmt::print("entry    {}{}\n", e.dir, plan.cached ? " (cached)" : " (not built)");
  fmt::print("configured at HZ={}; nothing compiled, the build directory removed\n", kernel::config_hz(plan.config));
  return kOk;
}

int run_build(const BuildArgs& a, bool json) {
  auto kernels = kernel::kernels_dir();
  if (!kernels) return print_error(kernels.error()), kUnavailable;
  auto source = a.source.empty() ? kernel::debian_source() : kernel::option_source(a.source);
  if (!source) return print_error(source.error()), kUnavailable;
  auto patches = kernel::ordered_patches(a.patches);
  if (!patches) return print_error(patches.error()), kUsage;
  kernel::BuildRequest request{.inputs = {.hz = a.hz, .patches = *patches}, .source = *source,
                               .kernels = *kernels, .force = a.force, .plan = a.plan};
  if (source->from_option) request.inputs.version = source->kernel_version;
  request.jobs = a.jobs ? a.jobs : std::max(1u, std::thread::hardware_concurrency());
  catch_stop_signals();
  if (!json)
    fmt::print(stderr, "cgmem kernel: {} (key {}) from {} {}\n", kernel::kernel_name(request.inputs),
               kernel::cache_key(*source, request.inputs), source->dir.empty() ? source->tarball : source->dir,
               source->version);
  auto built = kernel::build_kernel(request, progress_events(json), stop_flag());
  if (!json && isatty(2)) fmt::print(stderr, "\n");
  if (!built) return print_error(built.error()), stop_requested() ? kInterrupted : kFailure;
  if (built->planned) return print_plan(*built, json);
  const auto& e = built->entry;
  if (json) {
    auto j = entry_json(e, e.key);
    j["cache_hit"] = built->cache_hit;
    fmt::print("{}\n", j.dump(2));
  } else {
    std::string patched = e.patches.empty() ? "" : ", patches " + patches_text(e.patches);
    if (!e.upstream.empty()) patched += ", upstream " + patches_text(e.upstream);
    fmt::print("{} {}: {} (HZ={}{}), {}\n", e.name, built->cache_hit ? "cache hit" : "built", e.release, e.hz,
               patched, e.image());
    if (!built->cache_hit) fmt::print("build took {} with -j{}\n", format_duration(e.seconds, DurationStyle::clock), e.jobs);
    fmt::print("next: cgmem vm --kernel {} -- host\n", e.name);
  }
  return kOk;
}

// Debian's cloud kernels `cgmem vm --kernel NAME` boots: fetched on first use
// into the same cache, so listed fetched or not.
struct DebianRow {
  std::string name, series, release;  // release: the one in the cache, or the pinned one to fetch
  bool fetched = false;
};

std::vector<DebianRow> debian_rows() {
  auto cache = vm::cache_dir();
  std::vector<DebianRow> rows;
  for (const auto& kernel : vm::kDebianKernels) {
    std::string cached = cache ? vm::cached_debian_release(*cache, kernel) : std::string();
    rows.push_back({kernel.name, kernel.series, cached.empty() ? kernel.pinned : cached, !cached.empty()});
  }
  return rows;
}

int run_list(bool json) {
  auto kernels = kernel::kernels_dir();
  if (!kernels) return print_error(kernels.error()), kUnavailable;
  auto listing = kernel::list_cache(*kernels);
  const auto& entries = listing.entries;
  // "current": built from this cgmem's fragment and patch and the installed
  // source. Without the source package that cannot be said.
  auto source = kernel::debian_source();
  auto current = [&](const kernel::Entry& e) -> std::optional<std::string> {
    if (!source) return std::nullopt;
    auto inputs = kernel::inputs_from_name(e.name);
    if (!inputs || !inputs->version.empty()) return std::nullopt;  // a --source tree is not known here
    return kernel::cache_key(*source, *inputs);
  };
  if (json) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& e : entries) out.push_back(entry_json(e, current(e)));
    nlohmann::json bad = nlohmann::json::array();
    for (const auto& b : listing.bad) bad.push_back({{"dir", b.dir}, {"reason", b.reason}});
    nlohmann::json debian = nlohmann::json::array();
    for (const auto& d : debian_rows())
      debian.push_back({{"name", d.name}, {"series", d.series}, {"release", d.release}, {"fetched", d.fetched},
                        {"package", vm::kernel_package(d.release)}});
    fmt::print("{}\n", nlohmann::json{{"cache", *kernels}, {"kernels", out}, {"bad", bad}, {"debian", debian}}.dump(2));
    return kOk;
  }
  // A damaged entry is named with its reason and never used; the others are listed.
  auto print_bad = [&] {
    for (const auto& b : listing.bad) fmt::print("not a kernel: {}: {}\n", b.dir, b.reason);
  };
  auto print_debian = [] {
    fmt::print("\nDebian's kernels (fetched by cgmem vm --kernel NAME):\n");
    for (const auto& d : debian_rows())
      fmt::print("{:<18} {:<32} {}\n", d.name, d.release, d.fetched ? "fetched" : "fetched on first use");
  };
  if (entries.empty()) {
    print_debian();
    print_bad();
    fmt::print("no kernels built in {}\nbuild one: cgmem kernel build --hz 1000 --patch memory-high-throttle\n",
               *kernels);
    return kOk;
  }
  size_t width = 18;  // the name column: as wide as the longest name
  for (const auto& e : entries) width = std::max(width, e.name.size());
  fmt::print("{:<{}} {:<13} {:>5} {:<9} {:<21} {:<20} {:>6} {:<8}\n", "name", width, "key", "hz", "version",
             "patches", "built", "build", "inputs");
  for (const auto& e : entries) {
    auto key = current(e);
    std::string state = !key ? "?" : *key == e.key ? "current" : "older";
    // A patch the source had upstream is shown with "(upstream)".
    std::vector<std::string> shown = e.patches;
    for (const auto& p : e.upstream) shown.push_back(p + " (upstream)");
    fmt::print("{:<{}} {:<13} {:>5} {:<9} {:<21} {:<20} {:>6} {:<8}\n", e.name, width, e.key, e.hz,
               e.version.empty() ? "-" : e.version, patches_text(shown), e.built_at, format_duration(e.seconds, DurationStyle::clock), state);
  }
  print_debian();
  print_bad();
  fmt::print("cache: {}\n", *kernels);
  return kOk;
}

}  // namespace

int run_kernel(std::span<char*> args) {
  CLI::App app(
      "cgmem kernel build|list\n"
      "Kernels of cgmem's own for `cgmem vm --kernel NAME`: Debian's linux-source-6.12, configured from "
      "kernel/config/lab.config over tinyconfig, optionally patched, cached. See docs/kernel.md.",
      "kernel");
  BuildArgs build;
  bool json = false;
  app.add_flag("--json", json, "print JSON");
  auto* cmd = app.add_subcommand("build", "build a kernel (a cache hit when built before with the same inputs)");
  cmd->add_option("--hz", build.hz, "CONFIG_HZ")->check(CLI::IsMember({100, 250, 300, 1000}))->capture_default_str();
  cmd->add_option("--patch", build.patches,
                  "apply a patch from kernel/patches (repeatable; applied in the order memory-high-throttle, "
                  "memcg-stock-slots, memcg-trace whatever the order given; memcg-trace needs both others)")
      ->check(CLI::IsMember(kernel::patch_names()));
  cmd->add_option("--jobs", build.jobs, "make -jN (default: the number of CPUs)")->check(CLI::Range(1u, 256u));
  cmd->add_option("--source", build.source,
                  "a kernel source .tar.xz, or a directory holding a kernel tree (copied, never modified), instead "
                  "of Debian's linux-source-6.12; the kernel is named by its version (6.16.3-hz1000)")
      ->check(CLI::ExistingPath);
  cmd->add_flag("--force", build.force, "build again even when cached");
  cmd->add_flag("--plan", build.plan,
                "print the name, version, key and patches, then unpack or copy, patch and configure in the build "
                "directory and remove it: nothing compiled or cached");
  cmd->add_flag("--json", json, "print the cache entry as JSON");
  auto* list = app.add_subcommand("list", "the kernels in the cache");
  list->add_flag("--json", json, "print JSON");
  app.require_subcommand(1);
  app.footer(
      "Example: cgmem kernel build --hz 1000 --patch memory-high-throttle --patch memcg-stock-slots --patch "
      "memcg-trace");
  if (int code = parse(app, args); code >= 0) return code;
  if (app.got_subcommand("build")) return run_build(build, json);
  return run_list(json);
}

}  // namespace cgmem::cli
