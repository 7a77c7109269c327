// The matrix's progress line on stderr:
//   matrix [######--------------]  7/24 anon-over-high-r1  run 0:12  elapsed 4:01  ETA 12:30
// On a terminal it is redrawn in place every 200 ms; otherwise one line is
// printed when each run starts and one when it ends.
//
// ETA: the caps of the runs still to go, scaled by how much of their cap the
// runs finished so far actually took (runs killed early make it shorter);
// before any run has finished, the caps themselves.
#pragma once

#include <cstdio>
#include <functional>
#include <string>

namespace cgmem::matrix {

struct ProgressState {
  size_t index = 0, total = 0;   // index counts from 1
  std::string name;
  double run_s = 0, elapsed_s = 0;
  double eta_s = 0;
};

std::string progress_line(const ProgressState& s, int bar_width = 20);

// ETA from the remaining caps; `done_s`/`done_cap_s` are the durations and
// caps of the runs this session has finished.
double eta_seconds(double remaining_caps_s, double current_cap_s, double current_run_s, double done_s,
                   double done_cap_s);

class ProgressPrinter {
 public:
  // lines_only: never redraw, even on a terminal (a VM's serial console).
  explicit ProgressPrinter(FILE* out, bool lines_only = false);
  void show(const ProgressState& s);   // redraw (terminal only)
  void line(const std::string& text);  // a whole line, above the bar

 private:
  FILE* out_;
  bool tty_;
  bool drawn_ = false;
};

// The timings behind the line over one session of a batch: when it began,
// and how long the runs finished so far took against their caps (the ETA).
class BatchProgress {
 public:
  // `remaining_caps_s`: the caps of every run this session will start.
  BatchProgress(ProgressPrinter& printer, size_t total, double remaining_caps_s);
  // Run `index` (from 1) starts: the line is shown; the tick redraws it.
  std::function<void()> start(size_t index, const std::string& name, double cap_s);
  // It ended after `seconds`: a line says how (`status` empty: no outcome.json).
  void finish(const std::string& status, double seconds);

 private:
  void show();
  ProgressPrinter& printer_;
  ProgressState state_;
  double started_s_, run_started_s_ = 0, cap_s_ = 0;
  double remaining_caps_s_, done_s_ = 0, done_cap_s_ = 0;
};

}  // namespace cgmem::matrix
