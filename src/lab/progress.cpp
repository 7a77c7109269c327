#include "lab/progress.h"

#include <fcntl.h>
#include <unistd.h>

#include <fmt/format.h>

#include "common/size.h"

namespace cgmem::lab {

std::string progress_line(double elapsed_s, const TickSummary& tick, uint64_t ops_in_second,
                          uint64_t slowest_lat_ns) {
  std::string slowest = ops_in_second == 0
                            ? std::string("-")
                            : fmt::format("{:.1f}ms", static_cast<double>(slowest_lat_ns) / 1e6);
  return fmt::format("cgmem run: {:6.1f}s  current {}  ops {}  slowest op {}  high {}  max {}",
                     elapsed_s, format_bytes(tick.current), ops_in_second, slowest, tick.events.high,
                     tick.events.max);
}

Progress::Progress(LineSink sink, const std::string& ops_path, uint64_t started_ns)
    : sink_(std::move(sink)), started_ns_(started_ns), next_ns_(started_ns + 1'000'000'000ULL) {
  if (!sink_) return;
  fd_.reset(::open(ops_path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd_.valid()) tail_ = std::make_unique<OpsTail>(fd_.get());
}

void Progress::update(uint64_t now_ns, const TickSummary& tick) {
  if (!sink_ || now_ns < next_ns_) return;
  next_ns_ += 1'000'000'000ULL;
  if (next_ns_ <= now_ns) next_ns_ = now_ns + 1'000'000'000ULL;
  OpsTail::Scan scan = tail_ ? tail_->scan() : OpsTail::Scan{};
  double elapsed = static_cast<double>(now_ns - started_ns_) / 1e9;
  sink_(progress_line(elapsed, tick, scan.lines, scan.slowest_lat_ns));
}

}  // namespace cgmem::lab
