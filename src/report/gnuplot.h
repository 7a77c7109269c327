// A few gnuplot processes that draw figure scripts as they are handed over.
// They start before any data exists and read `load` commands on their stdin,
// so a figure is drawn while the next one's data is still being binned, and
// the figures are spread over the cores (cairo's PNG encoding is most of
// the report's drawing time).
#pragma once

#include <csignal>
#include <string>
#include <vector>

#include "common/fd.h"
#include "common/process.h"

namespace cgmem::report {

struct Plotter {
  Process process;
  Fd input;  // our end of its stdin
  unsigned load = 0;
};

class Gnuplots {
 public:
  // Starts up to `count` gnuplots in `dir`, their output appended to
  // dir/gnuplot.log. None started (gnuplot missing) sets warning().
  Gnuplots(const std::string& dir, unsigned count);
  ~Gnuplots();
  Gnuplots(const Gnuplots&) = delete;
  Gnuplots& operator=(const Gnuplots&) = delete;

  // Hands gnuplot `commands` (ending in a newline) on the process with the
  // least work so far; `cost` is this job's share in any unit.
  void draw(const std::string& commands, unsigned cost);
  // Ends their input and waits. False when one failed or could not be fed;
  // warning() then says where to look. When *stop becomes nonzero (a
  // SIGINT or SIGTERM caught, cli/signals.h) the gnuplots are killed by
  // their pid and reaped instead, so none outlives the report.
  bool finish(const volatile std::sig_atomic_t* stop = nullptr);
  const std::string& warning() const { return warning_; }

 private:
  std::string dir_;
  std::vector<Plotter> procs_;
  bool failed_ = false;
  std::string warning_;
};

}  // namespace cgmem::report
