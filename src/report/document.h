// A render-neutral document: sections of paragraphs and tables. summary and
// predict build one; markdown() here and html.cpp print it, so the Markdown
// and the HTML always show the same numbers.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "report/stats.h"

namespace cgmem::report {

struct Table {
  std::string caption;
  std::vector<std::string> head;
  std::vector<std::vector<std::string>> rows;
  bool prose = false;  // cells of text (the claims table): left-aligned, wrapped in HTML
};

struct Section {
  std::string title;
  std::vector<std::string> paragraphs;  // before the tables
  std::vector<Table> tables;
};

// Numbers as the report prints them: 3 significant digits below 100,
// whole numbers above; "-" for a missing value.
std::string num(std::optional<double> v);
std::string num_fixed(std::optional<double> v, int decimals);
std::string mib(std::optional<double> bytes);   // "241.5 MiB"
std::string percent(std::optional<double> share);  // "98%"
// "0.28 to 0.39", or one number when they agree after formatting.
std::string range(const Range& r, std::string (*fmt)(std::optional<double>) = num);

// "# title", the preface paragraphs, then each section.
std::string markdown(const std::string& title, const std::vector<Section>& sections,
                     const std::vector<std::string>& preface = {});

}  // namespace cgmem::report
