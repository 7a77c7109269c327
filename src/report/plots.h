// The report's figures, drawn by gnuplot (PNG through pngcairo, and SVG):
//   latency-WORKLOAD    median op latency per memory.current bin, log scale,
//                       one line per config (the study's main figure)
//   memory-WORKLOAD     memory.current over time, one line per run
//   sleeps-WORKLOAD     median sleeps per op per memory.current bin, one line
//                       per config with memory.high (single-process runs)
// Data files and the script are written next to the images, so a figure can
// be redrawn or restyled by hand.
#pragma once

#include <string>
#include <vector>

#include "common/error.h"
#include "report/run.h"

namespace cgmem::report {

struct Figure {
  std::string name;   // file stem, e.g. "latency-anon-over"
  std::string title;
};

struct Plots {
  std::vector<Figure> figures;  // each has NAME.png and NAME.svg in the plots dir
  std::string warning;          // why there are no images, if so
  int gnuplot_pid = -1;         // gnuplot still drawing, until finish_plots
  std::string dir;
};

// Writes data and script under out_dir/plots and starts gnuplot on them; the
// report computes its tables while gnuplot draws (on 1 million ops that
// hides gnuplot's 0.1 s). A missing gnuplot is a warning (the report goes on
// without images), not an error.
Result<Plots> write_plots(const std::vector<Run>& runs, const std::string& out_dir);

// Waits for gnuplot; on failure clears the figures and sets the warning.
void finish_plots(Plots& plots);

// A name safe in a file name: letters, digits, '-', '_' and '.' kept, the rest '_'.
std::string file_safe(const std::string& name);

}  // namespace cgmem::report
