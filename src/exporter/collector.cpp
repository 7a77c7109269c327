#include "exporter/collector.h"

#include <poll.h>
#include <time.h>

#include "common/clock.h"
#include "exporter/labels.h"
#include "host/watchable.h"

namespace cgmem::exporter {
namespace {

double thread_cpu_s() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) / 1e9;
}

}  // namespace

Result<std::unique_ptr<Collector>> Collector::open(CollectorOptions options) {
  std::unique_ptr<Collector> c(new Collector(std::move(options)));
  c->options_.scan.events = true;
  c->self_.rules = c->options_.scan.kernel.rules;
  if (c->options_.max_series) {
    size_t rows = c->options_.max_series / max_series_per_cgroup();
    if (rows == 0)
      return fail("cap the series at " + std::to_string(c->options_.max_series) + ": one cgroup can have " +
                      std::to_string(max_series_per_cgroup()) + " series",
                  "", "give --max-series " + std::to_string(max_series_per_cgroup()) + " or more");
    c->options_.scan.max_rows = rows;
  }
  auto scanner = watch::Scanner::open(c->options_.scan);
  if (!scanner) return std::unexpected(scanner.error());
  c->scanner_ = std::move(*scanner);
  return c;
}

const LabelBlock& Collector::labels_of(const watch::Row& row) {
  auto found = labels_.find(row.id);
  if (found != labels_.end()) return found->second;
  return labels_.emplace(row.id, label_block(row.path, labels_for(row.path))).first->second;
}

Result<void> Collector::scan(uint64_t now_ns) {
  if (now_ns == 0) now_ns = cgmem::now_ns();
  double cpu0 = thread_cpu_s();
  auto rows = scanner_->scan(now_ns);
  if (!rows) return std::unexpected(rows.error());
  self_.scan_cpu_s = thread_cpu_s() - cpu0;
  self_.last_scan_unix = unix_time_s();
  items_.clear();
  self_.label_values_cut = 0;
  for (const watch::Row& row : *rows) {
    const LabelBlock& block = labels_of(row);
    const std::string& labels = block.text;
    kills_.observe(row, labels, now_ns);
    if (row.state == watch::State::gone) {
      labels_.erase(row.id);  // the kill log keeps its own copy
      continue;
    }
    items_.push_back({.row = &row, .labels = &labels});
    self_.label_values_cut += block.cut;
  }
  // No row at all: say whether the tree has a memory controller (a walk
  // that stops at the first memory.current; a scan with rows costs nothing).
  self_.no_memory_controller =
      rows->empty() ? host::no_memory_controller(options_.scan.root, options_.scan.max_depth, options_.memory_v1_mount)
                    : std::nullopt;
  kills_.expire(now_ns, options_.kill_retention_ns);
  publish(now_ns);
  return {};
}

void Collector::read_events(uint64_t now_ns) {
  for (const watch::Row& row : scanner_->scan_events(now_ns)) {
    if (row.state == watch::State::gone) {
      kills_.observe(row, {}, now_ns);
      continue;
    }
    if (row.sample.local.oom_kill) kills_.observe(row, labels_of(row).text, now_ns);
  }
}

void Collector::publish(uint64_t scan_ns) {
  double cpu0 = thread_cpu_s();
  self_.scan = scanner_->stats();
  self_.kills_retained = kills_.size();
  kills_.items(kill_items_);
  auto page = std::make_shared<Page>();
  page->scan_ns = scan_ns;
  // The text format always (every scraper takes it); OpenMetrics too while scrapers ask for it.
  page->text.reserve(last_size_);
  page->series = render(page->text, Format::text, items_, kill_items_, self_);
  if (wanted_.exchange(0) & (1u << unsigned(Format::openmetrics))) {
    page->openmetrics.reserve(last_size_ + last_size_ / 8);
    render(page->openmetrics, Format::openmetrics, items_, kill_items_, self_);
  }
  last_size_ = page->text.size();
  self_.render_cpu_s = thread_cpu_s() - cpu0;
  std::lock_guard lock(mutex_);
  page_ = std::move(page);
}

std::shared_ptr<const Page> Collector::page() const {
  std::lock_guard lock(mutex_);
  return page_;
}

void Collector::want(Format format) { wanted_.fetch_or(1u << unsigned(format), std::memory_order_relaxed); }

Result<void> Collector::run(bool (*stop)()) {
  uint64_t next = cgmem::now_ns() + options_.interval_ns;
  while (!stop()) {
    uint64_t now = cgmem::now_ns();
    if (now >= next) {
      if (auto r = scan(now); !r) return r;
      next += options_.interval_ns;
      if (next <= now) next = now + options_.interval_ns;  // a slow scan: no burst to catch up
      continue;
    }
    pollfd fd{scanner_->event_fd(), POLLIN, 0};
    int timeout_ms = int(std::min<uint64_t>((next - now + 999'999) / 1'000'000, 200));
    if (::poll(&fd, fd.fd >= 0 ? 1 : 0, timeout_ms) > 0) read_events(cgmem::now_ns());
  }
  return {};
}

}  // namespace cgmem::exporter
