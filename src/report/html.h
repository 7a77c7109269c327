// report.html: the claims table, the plots, the summary and prediction tables on one
// self-contained page (the images are the SVGs in plots/, linked).
#pragma once

#include <string>
#include <vector>

#include "report/document.h"
#include "report/plots.h"

namespace cgmem::report {

struct Page {
  std::string title;
  std::vector<std::string> notes;  // batch facts and warnings, at the top
  std::vector<Section> claims, summary, predict;  // claims first, above the plots
  std::vector<Section> trace;                     // after the predictions (traced runs only)
  Plots plots;
};

std::string html(const Page& page);

// Text made safe inside HTML: & < > " escaped.
std::string html_escape(const std::string& text);

}  // namespace cgmem::report
