// The report's figures, drawn by gnuplot (PNG through pngcairo, and SVG):
//   latency-WORKLOAD    median op latency per memory.current bin, log scale,
//                       one line per config (the study's main figure)
//   memory-WORKLOAD     memory.current over time, one line per run
//   sleeps-WORKLOAD     median sleeps per op per memory.current bin, one line
//                       per config with memory.high (single-process runs)
//   rfc-shift           time to the OOM kill against memory.high.throttle:
//                       measured, the RFC's table and the model (rfc.h)
// Each figure's data files and script (NAME.gp) are written next to its
// images, so it can be redrawn or restyled by hand.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "common/error.h"
#include "report/gnuplot.h"
#include "report/rfc.h"
#include "report/run.h"

namespace cgmem::report {

struct Figure {
  std::string name;   // file stem, e.g. "latency-anon-over"
  std::string title;
};

struct Plots {
  std::vector<Figure> figures;  // each has NAME.png and NAME.svg in the plots dir
  std::string warning;          // why there are no images, if so
  std::string dir;
  std::unique_ptr<Gnuplots> gnuplots;  // still drawing, until finish_plots
};

// Writes data and scripts under out_dir/plots and starts gnuplot on them; the
// report computes its tables while gnuplot draws. A missing gnuplot is a
// warning (the report goes on without images), not an error.
// `rfc` draws rfc-shift when it has rows.
Result<Plots> write_plots(const std::vector<Run>& runs, const std::string& out_dir, const RfcComparison& rfc = {});

// Waits for gnuplot; on failure clears the figures and sets the warning.
// A nonzero *stop ends gnuplot at once (Gnuplots::finish).
void finish_plots(Plots& plots, const volatile std::sig_atomic_t* stop = nullptr);

// A name safe in a file name: letters, digits, '-', '_' and '.' kept, the rest '_'.
std::string file_safe(const std::string& name);

}  // namespace cgmem::report
