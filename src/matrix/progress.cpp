#include "matrix/progress.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>

#include "common/clock.h"
#include "common/duration.h"

namespace cgmem::matrix {

std::string progress_line(const ProgressState& s, int bar_width) {
  double share = s.total ? static_cast<double>(s.index - 1) / static_cast<double>(s.total) : 0;
  int filled = static_cast<int>(share * bar_width);
  std::string bar = std::string(static_cast<size_t>(filled), '#') + std::string(static_cast<size_t>(bar_width - filled), '-');
  int digits = static_cast<int>(std::to_string(s.total).size());
  return fmt::format("matrix [{}] {:>{}}/{} {}  run {}  elapsed {}  ETA {}", bar, s.index, digits, s.total, s.name,
                     format_duration(s.run_s, DurationStyle::clock), format_duration(s.elapsed_s, DurationStyle::clock), format_duration(s.eta_s, DurationStyle::clock));
}

double eta_seconds(double remaining_caps_s, double current_cap_s, double current_run_s, double done_s,
                   double done_cap_s) {
  double ratio = done_cap_s > 0 ? std::min(1.0, done_s / done_cap_s) : 1.0;
  double current_left = std::max(0.0, ratio * current_cap_s - current_run_s);
  return ratio * remaining_caps_s + current_left;
}

ProgressPrinter::ProgressPrinter(FILE* out, bool lines_only)
    : out_(out), tty_(out && !lines_only && isatty(fileno(out))) {}

void ProgressPrinter::show(const ProgressState& s) {
  if (!out_ || !tty_) return;
  fmt::print(out_, "\r\033[K{}", progress_line(s));
  std::fflush(out_);
  drawn_ = true;
}

void ProgressPrinter::line(const std::string& text) {
  if (!out_) return;
  if (drawn_) fmt::print(out_, "\r\033[K");
  fmt::print(out_, "{}\n", text);
  std::fflush(out_);
  drawn_ = false;
}

BatchProgress::BatchProgress(ProgressPrinter& printer, size_t total, double remaining_caps_s)
    : printer_(printer), state_{.total = total}, started_s_(now_s()), remaining_caps_s_(remaining_caps_s) {}

std::function<void()> BatchProgress::start(size_t index, const std::string& name, double cap_s) {
  remaining_caps_s_ -= cap_s;
  cap_s_ = cap_s;
  run_started_s_ = now_s();
  state_.index = index, state_.name = name;
  show();
  return [this] { show(); };
}

void BatchProgress::show() {
  state_.run_s = now_s() - run_started_s_;
  state_.elapsed_s = now_s() - started_s_;
  state_.eta_s = eta_seconds(remaining_caps_s_, cap_s_, state_.run_s, done_s_, done_cap_s_);
  printer_.show(state_);
}

void BatchProgress::finish(const std::string& status, double seconds) {
  done_s_ += seconds;
  done_cap_s_ += cap_s_;
  printer_.line(fmt::format("matrix: {:>{}}/{} {}: {} ({:.1f} s)", state_.index, std::to_string(state_.total).size(),
                            state_.total, state_.name, status.empty() ? "no outcome.json" : status, seconds));
}

}  // namespace cgmem::matrix
