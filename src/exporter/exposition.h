// The metrics page: every cgroup row of a scan as Prometheus series, in the
// text exposition format 0.0.4 or in OpenMetrics 1.0.0 (chosen by the
// scraper's Accept header), with HELP and TYPE for each family.
//
//   # HELP cgmem_memory_events_high_total memory.events high: times ...
//   # TYPE cgmem_memory_events_high_total counter
//   cgmem_memory_events_high_total{cgroup="/cgmem/throttled"} 4811
//
// The two formats differ where OpenMetrics is stricter: a counter family is
// named without `_total` in its TYPE line (the sample keeps it), families
// with a unit get a UNIT line, and the page ends with `# EOF`.
//
// Names follow Prometheus conventions: base units (bytes, seconds), `_total`
// for counters. The cgroup files behind each family are in docs/fleet.md.
// Rendering reads no file: it turns rows (watch/scanner.h) into text.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "model/kernel_rules.h"
#include "watch/scanner.h"

namespace cgmem::exporter {

enum class Format { text, openmetrics };

// OpenMetrics when the Accept header lists application/openmetrics-text
// (without q=0), else the text format.
Format negotiate(std::string_view accept);
std::string_view content_type(Format format);

// One cgroup to render: its row and its label block (labels.h).
struct Item {
  const watch::Row* row = nullptr;
  const std::string* labels = nullptr;
};

// An OOM kill kept after its cgroup (kills.h): the victim's labels and count.
struct KillItem {
  const std::string* labels = nullptr;
  uint64_t kills = 0;
};

// About the exporter itself, rendered as cgmem_exporter_* series.
struct SelfStats {
  watch::ScanStats scan;
  double scan_cpu_s = 0;      // the last scan's thread CPU time
  double render_cpu_s = 0;    // the previous page's render, thread CPU time
  double last_scan_unix = 0;  // wall clock of the last scan
  size_t kills_retained = 0;
  size_t label_values_cut = 0;  // label values on the page cut to kMaxLabelValue (labels.h)
  // Set when the tree has no cgroup v2 memory controller: why (host/watchable.h).
  std::optional<std::string> no_memory_controller;
  // The kernel rules the forecasts use (the stock's slots decide per page).
  model::KernelRules rules = model::default_rules();
};

// The most series one cgroup can have (the cap --max-series divides by).
size_t max_series_per_cgroup();

// Appends the page to out; returns the number of series written.
size_t render(std::string& out, Format format, std::span<const Item> items,
              std::span<const KillItem> kills, const SelfStats& self);

}  // namespace cgmem::exporter
