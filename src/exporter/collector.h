// The collector: the one thread that reads cgroupfs. It scans the tree every
// interval (watch/scanner.h: the rows `cgmem watch` and `cgmem top` show),
// reads memory.events changes between scans (so an OOM kill is caught when
// it happens, kills.h), renders the metrics page and publishes it. A scrape
// takes the last published page (a shared pointer, one lock held for a
// pointer copy): a slow or stuck scraper never delays a scan, and a scan
// never makes a scraper wait for more than that copy.
//
// Formats: each page is rendered in the text format, and in OpenMetrics too
// when a scraper asked for it during the previous interval. A scraper asking
// for OpenMetrics before a page has it gets the text format, which it also
// accepts (Prometheus lists text/plain in its Accept header).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/error.h"
#include "exporter/exposition.h"
#include "exporter/kills.h"
#include "exporter/labels.h"
#include "watch/scanner.h"

namespace cgmem::exporter {

struct CollectorOptions {
  watch::ScanOptions scan;           // root, depth, match; events is turned on
  uint64_t interval_ns = 10'000'000'000;
  uint64_t kill_retention_ns = 600'000'000'000;  // 10 minutes
  size_t max_series = 0;             // 0: no cap; else cgroups are capped at max_series / max_series_per_cgroup()
  std::optional<std::string> memory_v1_mount;  // the host's (HostFacts), named when nothing can be watched
};

// One rendered page.
struct Page {
  std::string text;         // empty when not rendered
  std::string openmetrics;  // empty when not rendered
  size_t series = 0;
  uint64_t scan_ns = 0;     // CLOCK_MONOTONIC of the scan behind it
};

class Collector {
 public:
  static Result<std::unique_ptr<Collector>> open(CollectorOptions options);

  // A regular scan, then the page. Fails when the root is gone.
  Result<void> scan(uint64_t now_ns);
  // Drains memory.events changes (the kill log takes them). Returns at once
  // when there are none.
  void read_events(uint64_t now_ns);
  // Scans every interval and reads events in between until stop() says so
  // (asked at least every 200 ms). Returns the error that ended it, if any.
  Result<void> run(bool (*stop)());

  // For scrapers (any thread): the last page, and which format it will be
  // served in for this Accept header.
  std::shared_ptr<const Page> page() const;
  void want(Format format);

  const watch::Scanner& scanner() const { return *scanner_; }
  uint64_t interval_ns() const { return options_.interval_ns; }
  // After a scan with no cgroup: why (host/watchable.h); nullopt otherwise.
  const std::optional<std::string>& nothing_to_watch() const { return self_.no_memory_controller; }

 private:
  explicit Collector(CollectorOptions options) : options_(std::move(options)) {}
  const LabelBlock& labels_of(const watch::Row& row);
  void publish(uint64_t scan_ns);

  CollectorOptions options_;
  std::unique_ptr<watch::Scanner> scanner_;
  std::unordered_map<uint64_t, LabelBlock> labels_;  // label block by cgroup id
  KillLog kills_;
  std::vector<Item> items_;
  std::vector<KillItem> kill_items_;
  SelfStats self_;
  size_t last_size_ = 0;
  std::atomic<unsigned> wanted_{0};  // bit per Format asked for since the last page
  mutable std::mutex mutex_;
  std::shared_ptr<const Page> page_;
};

}  // namespace cgmem::exporter
