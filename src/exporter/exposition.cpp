#include "exporter/exposition.h"

#include <fmt/format.h>

#include <array>
#include <charconv>
#include <cmath>
#include <iterator>

#include "exporter/labels.h"

namespace cgmem::exporter {
namespace {

using watch::File;
using watch::Row;

enum class Kind { gauge, counter };

// Writes one family's samples.
class Out {
 public:
  Out(std::string& out, std::string_view name, bool counter) : out_(out), name_(name), counter_(counter) {}

  void labels(const std::string* block) { labels_ = block; }
  void value(uint64_t v) { head({}, {}), fmt::format_to(std::back_inserter(out_), "{}\n", v); }
  void value(double v) { head({}, {}), number(v), out_ += '\n'; }
  void value(std::string_view key, std::string_view label, double v) { head(key, label), number(v), out_ += '\n'; }
  size_t written() const { return written_; }

 private:
  void head(std::string_view key, std::string_view label) {
    ++written_;
    out_ += name_;
    if (counter_) out_ += "_total";
    bool any = labels_ && !labels_->empty();
    if (!any && key.empty()) {
      out_ += ' ';
      return;
    }
    out_ += '{';
    if (any) out_ += *labels_;
    if (!key.empty()) {
      if (any) out_ += ',';
      out_ += key, out_ += "=\"", out_ += label, out_ += '"';
    }
    out_ += "} ";
  }
  // Go's float syntax, which both formats take: +Inf, -Inf, NaN, or the shortest decimal.
  void number(double v) {
    if (std::isnan(v)) out_ += "NaN";
    else if (std::isinf(v)) out_ += v > 0 ? "+Inf" : "-Inf";
    else fmt::format_to(std::back_inserter(out_), "{}", v);
  }

  std::string& out_;
  std::string_view name_;
  bool counter_;
  const std::string* labels_ = nullptr;
  size_t written_ = 0;
};

double limit_value(const Limit& l) { return l.is_max() ? INFINITY : double(l.bytes()); }

struct Family {
  std::string_view name;  // counters: without _total
  Kind kind;
  std::string_view unit;  // OpenMetrics UNIT: the name's last part
  std::string_view help;
  size_t max_series;      // per cgroup
  void (*samples)(Out&, const Row&);
};

constexpr double kUsec = 1e6;

// Each family, in the order of the page. A family writes nothing for a row
// whose file was not read (an older kernel, no swap accounting).
constexpr Family kFamilies[] = {
    {"cgmem_memory_current_bytes", Kind::gauge, "bytes", "memory.current: memory charged to the cgroup and its descendants.", 1,
     [](Out& o, const Row& r) { if (r.sample.has(File::current)) o.value(r.sample.current); }},
    {"cgmem_memory_high_bytes", Kind::gauge, "bytes", "memory.high: the throttle limit (+Inf: max).", 1,
     [](Out& o, const Row& r) { if (r.sample.has(File::high)) o.value(limit_value(r.sample.high)); }},
    {"cgmem_memory_max_bytes", Kind::gauge, "bytes", "memory.max: the OOM limit (+Inf: max).", 1,
     [](Out& o, const Row& r) { if (r.sample.has(File::max)) o.value(limit_value(r.sample.max)); }},
    {"cgmem_memory_swap_current_bytes", Kind::gauge, "bytes", "memory.swap.current: swap used.", 1,
     [](Out& o, const Row& r) { if (r.sample.has(File::swap_current)) o.value(r.sample.swap_current); }},
    {"cgmem_memory_swap_max_bytes", Kind::gauge, "bytes", "memory.swap.max: the swap limit (+Inf: max).", 1,
     [](Out& o, const Row& r) { if (r.sample.has(File::swap_max)) o.value(limit_value(r.sample.swap_max)); }},
    {"cgmem_memory_swap_high_bytes", Kind::gauge, "bytes", "memory.swap.high: the swap throttle limit (+Inf: max).", 1,
     [](Out& o, const Row& r) { if (r.sample.has(File::swap_high)) o.value(limit_value(r.sample.swap_high)); }},
    {"cgmem_memory_anon_bytes", Kind::gauge, "bytes", "memory.stat anon: anonymous memory.", 1,
     [](Out& o, const Row& r) { if (r.sample.has(File::stat)) o.value(r.sample.anon); }},
    {"cgmem_memory_file_bytes", Kind::gauge, "bytes", "memory.stat file: page cache.", 1,
     [](Out& o, const Row& r) { if (r.sample.has(File::stat)) o.value(r.sample.file); }},
    {"cgmem_memory_inactive_file_bytes", Kind::gauge, "bytes", "memory.stat inactive_file: page cache the kernel reclaims first (cAdvisor's working set is memory.current minus it).", 1,
     [](Out& o, const Row& r) { if (r.sample.has(File::stat)) o.value(r.sample.inactive_file); }},
    {"cgmem_memory_events_high", Kind::counter, "", "memory.events high (hierarchical): reclaim runs over memory.high, 17 per throttle sleep when nothing is reclaimable.", 1,
     [](Out& o, const Row& r) { if (r.sample.has(File::events)) o.value(r.sample.events.high); }},
    {"cgmem_memory_events_max", Kind::counter, "", "memory.events max (hierarchical): charges that hit memory.max.", 1,
     [](Out& o, const Row& r) { if (r.sample.has(File::events)) o.value(r.sample.events.max); }},
    {"cgmem_memory_events_oom", Kind::counter, "", "memory.events oom (hierarchical): OOM situations.", 1,
     [](Out& o, const Row& r) { if (r.sample.has(File::events)) o.value(r.sample.events.oom); }},
    {"cgmem_memory_events_oom_kill", Kind::counter, "", "memory.events oom_kill (hierarchical): tasks the OOM killer killed; kept by the parent when a child goes.", 1,
     [](Out& o, const Row& r) { if (r.sample.has(File::events)) o.value(r.sample.events.oom_kill); }},
    {"cgmem_memory_events_oom_group_kill", Kind::counter, "", "memory.events oom_group_kill (hierarchical): whole-cgroup kills (memory.oom.group).", 1,
     [](Out& o, const Row& r) { if (r.sample.has(File::events)) o.value(r.sample.events.oom_group_kill); }},
    {"cgmem_memory_swap_events_high", Kind::counter, "", "memory.swap.events high (hierarchical): passes over memory.swap.high, 17 per throttle sleep.", 1,
     [](Out& o, const Row& r) { if (r.sample.has(File::swap_events)) o.value(r.sample.swap_events.high); }},
    {"cgmem_memory_swap_events_max", Kind::counter, "", "memory.swap.events max (hierarchical): swap-outs refused at memory.swap.max.", 1,
     [](Out& o, const Row& r) { if (r.sample.has(File::swap_events)) o.value(r.sample.swap_events.max); }},
    {"cgmem_memory_swap_events_fail", Kind::counter, "", "memory.swap.events fail (hierarchical): swap-outs that failed (memory.swap.max, or no swap slot).", 1,
     [](Out& o, const Row& r) { if (r.sample.has(File::swap_events)) o.value(r.sample.swap_events.fail); }},
    {"cgmem_memory_pressure_some_seconds", Kind::counter, "seconds", "memory.pressure some total: time some task stalled on memory.", 1,
     [](Out& o, const Row& r) { if (r.sample.has(File::memory_pressure)) o.value(double(r.sample.memory.some_usec) / kUsec); }},
    {"cgmem_memory_pressure_full_seconds", Kind::counter, "seconds", "memory.pressure full total: time all tasks stalled on memory.", 1,
     [](Out& o, const Row& r) { if (r.sample.has(File::memory_pressure)) o.value(double(r.sample.memory.full_usec) / kUsec); }},
    {"cgmem_io_pressure_some_seconds", Kind::counter, "seconds", "io.pressure some total: time some task stalled on I/O.", 1,
     [](Out& o, const Row& r) { if (r.sample.has(File::io_pressure)) o.value(double(r.sample.io.some_usec) / kUsec); }},
    {"cgmem_io_pressure_full_seconds", Kind::counter, "seconds", "io.pressure full total: time all tasks stalled on I/O.", 1,
     [](Out& o, const Row& r) { if (r.sample.has(File::io_pressure)) o.value(double(r.sample.io.full_usec) / kUsec); }},
    {"cgmem_memory_page_faults", Kind::counter, "", "memory.stat pgfault: page faults (one per new anonymous page).", 1,
     [](Out& o, const Row& r) { if (r.sample.has(File::stat)) o.value(r.sample.pgfault); }},
    {"cgmem_memory_major_page_faults", Kind::counter, "", "memory.stat pgmajfault: faults that waited for I/O.", 1,
     [](Out& o, const Row& r) { if (r.sample.has(File::stat)) o.value(r.sample.pgmajfault); }},
    {"cgmem_memory_reclaimed_pages", Kind::counter, "", "memory.stat pgsteal: pages reclaimed.", 1,
     [](Out& o, const Row& r) { if (r.sample.has(File::stat)) o.value(r.sample.pgsteal); }},
    {"cgmem_memory_refaulted_pages", Kind::counter, "", "memory.stat workingset_refault_anon + _file: reclaimed pages faulted back in.", 1,
     [](Out& o, const Row& r) { if (r.sample.has(File::stat)) o.value(r.sample.refault_anon + r.sample.refault_file); }},
    {"cgmem_state", Kind::gauge, "", "cgmem's classification of the cgroup over the last scan interval (docs/watch.md): 1 for its state, 0 for the others.", watch::kStateCount - 1,
     [](Out& o, const Row& r) {
       for (size_t s = 0; s < watch::kStateCount; ++s)
         if (watch::State(s) != watch::State::gone)
           o.value("state", watch::state_name(watch::State(s)), r.state == watch::State(s) ? 1.0 : 0.0);
     }},
    {"cgmem_throttle_sleeps_per_second", Kind::gauge, "", "Throttle sleeps per second over the last scan interval (memory.events.local high rise, or memory.swap.events high rise when larger, / 17).", 1,
     [](Out& o, const Row& r) { if (r.rates.dt_s > 0) o.value(r.rates.sleeps_per_s); }},
    {"cgmem_throttle_sleep_seconds", Kind::gauge, "seconds", "One throttle sleep at this usage, the kernel's formula on the timer wheel: the memory and swap terms added, then clamped to 2 * HZ (only over memory.high or memory.swap.high).", 1,
     [](Out& o, const Row& r) { if (r.forecast.valid) o.value(r.forecast.sleep_wheel_s); }},
    {"cgmem_throttle_delay_seconds", Kind::gauge, "seconds", "The two terms of one throttle sleep before the clamp: memory.current over memory.high and memory.swap.current over memory.swap.high (only over either).", 2,
     [](Out& o, const Row& r) {
       if (!r.forecast.valid) return;
       o.value("term", "memory", r.forecast.memory_delay_ms / 1e3);
       o.value("term", "swap", r.forecast.swap_delay_ms / 1e3);
     }},
    {"cgmem_throttle_regime", Kind::gauge, "", "How often a task sleeps: once per 64-page charge batch or once per page (1 for the regime measured; only over memory.high or memory.swap.high).", 3,
     [](Out& o, const Row& r) {
       if (!r.forecast.valid) return;
       for (auto regime : {watch::Regime::unknown, watch::Regime::per_batch, watch::Regime::per_page})
         o.value("regime", watch::regime_name(regime), r.forecast.regime == regime ? 1.0 : 0.0);
     }},
    {"cgmem_memory_max_eta_seconds", Kind::gauge, "seconds", "Projected time to reach memory.max: at the measured growth, and the model's bounds at one sleep per batch and per page (memory term only: left out over memory.swap.high).", 3,
     [](Out& o, const Row& r) {
       const watch::Forecast& f = r.forecast;
       if (f.max_eta_s) o.value("basis", "measured", *f.max_eta_s);
       if (f.max_eta_per_batch_s) o.value("basis", "model_per_batch", *f.max_eta_per_batch_s);
       if (f.max_eta_per_page_s) o.value("basis", "model_per_page", *f.max_eta_per_page_s);
     }},
    {"cgmem_tasks_in_d", Kind::gauge, "", "Tasks of the cgroup in state D (read only while the cgroup shows pressure).", 1,
     [](Out& o, const Row& r) { if (r.tasks.read) o.value(uint64_t(r.tasks.in_d)); }},
    {"cgmem_tasks_over_high", Kind::gauge, "", "Tasks asleep in mem_cgroup_handle_over_high: throttled by memory.high or memory.swap.high (read only while the cgroup shows pressure).", 1,
     [](Out& o, const Row& r) { if (r.tasks.read) o.value(uint64_t(r.tasks.over_high)); }},
};

constexpr std::string_view kKillsName = "cgmem_oom_kills_seen";
constexpr std::string_view kKillsHelp =
    "OOM kills seen in the cgroup (memory.events.local oom_kill, caught by inotify when it changes); "
    "kept for --kill-retention after the cgroup is removed.";

void append_help(std::string& out, std::string_view help, Format format) {
  for (char c : help) {
    if (c == '\\') out += "\\\\";
    else if (c == '\n') out += "\\n";
    else if (c == '"' && format == Format::openmetrics) out += "\\\"";
    else out += c;
  }
}

void header(std::string& out, Format format, std::string_view name, Kind kind, std::string_view unit,
            std::string_view help) {
  bool counter = kind == Kind::counter;
  bool om = format == Format::openmetrics;
  std::string_view suffix = counter && !om ? "_total" : "";
  fmt::format_to(std::back_inserter(out), "# HELP {}{} ", name, suffix);
  append_help(out, help, format);
  fmt::format_to(std::back_inserter(out), "\n# TYPE {}{} {}\n", name, suffix, counter ? "counter" : "gauge");
  if (om && !unit.empty()) fmt::format_to(std::back_inserter(out), "# UNIT {} {}\n", name, unit);
}

size_t render_self(std::string& out, Format format, const SelfStats& s, size_t series) {
  struct Self {
    std::string_view name;
    Kind kind;
    std::string_view unit, help;
    double value;
  };
  const Self selfs[] = {
      {"cgmem_exporter_cgroups", Kind::gauge, "", "Cgroups with series (matched, memory controller on, within --max-series).", double(s.scan.reported)},
      {"cgmem_exporter_cgroups_dropped", Kind::gauge, "", "Cgroups left out by --max-series at the last scan.", double(s.scan.dropped)},
      {"cgmem_exporter_cgroups_walked", Kind::gauge, "", "Cgroup directories walked at the last scan.", double(s.scan.cgroups)},
      {"cgmem_exporter_cgroups_preopened", Kind::gauge, "", "Cgroups whose files all stay open between scans.", double(s.scan.preopened)},
      {"cgmem_exporter_open_files", Kind::gauge, "", "Control files and directories the scanner keeps open (each a seq_file buffer of kernel memory charged to the exporter's cgroup once read).", double(s.scan.files_held + s.scan.dirs_held)},
      {"cgmem_exporter_cgroups_quiet", Kind::gauge, "", "Cgroups read quietly at the last scan: memory.current and memory.events unchanged, the other files carried from their last full read.", double(s.scan.quiet)},
      {"cgmem_exporter_inotify_failures", Kind::gauge, "", "memory.events files inotify refused (fs.inotify.max_user_watches reached).", double(s.scan.watch_failures)},
      {"cgmem_exporter_series", Kind::gauge, "", "Cgroup series on this page (self metrics not counted).", double(series)},
      {"cgmem_exporter_scans", Kind::counter, "", "Scans of the cgroup tree.", double(s.scan.scans)},
      {"cgmem_exporter_scan_cpu_seconds", Kind::gauge, "seconds", "CPU time of the last scan (the collector thread).", s.scan_cpu_s},
      {"cgmem_exporter_render_cpu_seconds", Kind::gauge, "seconds", "CPU time of rendering the previous page.", s.render_cpu_s},
      {"cgmem_exporter_last_scan_timestamp_seconds", Kind::gauge, "seconds", "Wall clock of the last scan, Unix seconds.", s.last_scan_unix},
      {"cgmem_exporter_kills_retained", Kind::gauge, "", "OOM-killed cgroups kept in cgmem_oom_kills_seen_total.", double(s.kills_retained)},
      {"cgmem_exporter_label_values_cut", Kind::gauge, "", "Label values on this page cut to 1024 bytes (a longer cgroup path): they end in ...[cut HASH].", double(s.label_values_cut)},
  };
  for (const Self& self : selfs) {
    header(out, format, self.name, self.kind, self.unit, self.help);
    Out o(out, self.name, self.kind == Kind::counter);
    o.value(self.value);
  }
  // 0 with the reason where nothing can be watched, so a fleet sees which hosts it is blind on.
  constexpr std::string_view kUsable = "cgmem_memory_controller_usable";
  header(out, format, kUsable, Kind::gauge, "",
         "1 when the watched tree has cgroups with memory.current (the cgroup v2 memory controller is on); "
         "0 with the reason when it has none (a cgroup v1 or hybrid host).");
  Out usable(out, kUsable, false);
  std::string reason;
  if (s.no_memory_controller) {
    bool cut = false;
    reason = "reason=\"";
    append_escaped(reason, label_value(*s.no_memory_controller, cut));
    reason += '"';
    usable.labels(&reason);
  }
  usable.value(s.no_memory_controller ? 0.0 : 1.0);
  // The rule behind cgmem_throttle_regime's per_page, per host: the stock's slots by kernel version.
  constexpr std::string_view kRule = "cgmem_throttle_regime_rule";
  header(out, format, kRule, Kind::gauge, "",
         "1, labelled with the kernel version, the per-CPU charge stock's slots and the rule they give: when "
         "a throttled task sleeps once per page rather than once per 64-page batch.");
  Out rule(out, kRule, false);
  std::string labels = fmt::format("version=\"{}\",stock_slots=\"{}\",rule=\"", model::version_text(s.rules.version),
                                   s.rules.stock_slots);
  append_escaped(labels, s.rules.per_page_rule());
  labels += '"';
  rule.labels(&labels);
  rule.value(1.0);
  return std::size(selfs) + 2;
}

}  // namespace

Format negotiate(std::string_view accept) {
  size_t at = accept.find("application/openmetrics-text");
  if (at == std::string_view::npos) return Format::text;
  std::string_view range = accept.substr(at);
  range = range.substr(0, range.find(','));
  size_t q = range.find("q=");
  if (q == std::string_view::npos) return Format::openmetrics;
  double weight = 1;
  std::string_view number = range.substr(q + 2);
  auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), weight);
  return ec == std::errc() && weight <= 0 ? Format::text : Format::openmetrics;
}

std::string_view content_type(Format format) {
  return format == Format::openmetrics ? "application/openmetrics-text; version=1.0.0; charset=utf-8"
                                       : "text/plain; version=0.0.4; charset=utf-8";
}

size_t max_series_per_cgroup() {
  size_t n = 1;  // cgmem_oom_kills_seen_total
  for (const Family& f : kFamilies) n += f.max_series;
  return n;
}

size_t render(std::string& out, Format format, std::span<const Item> items, std::span<const KillItem> kills,
              const SelfStats& self) {
  size_t series = 0;
  for (const Family& f : kFamilies) {
    header(out, format, f.name, f.kind, f.unit, f.help);
    Out o(out, f.name, f.kind == Kind::counter);
    for (const Item& item : items) {
      o.labels(item.labels);
      f.samples(o, *item.row);
    }
    series += o.written();
  }
  header(out, format, kKillsName, Kind::counter, "", kKillsHelp);
  Out o(out, kKillsName, true);
  for (const KillItem& k : kills) {
    o.labels(k.labels);
    o.value(k.kills);
  }
  series += o.written();
  render_self(out, format, self, series);
  if (format == Format::openmetrics) out += "# EOF\n";
  return series;
}

}  // namespace cgmem::exporter
