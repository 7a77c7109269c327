#include "report/html.h"

#include <fmt/format.h>

namespace cgmem::report {

namespace {

constexpr const char* kStyle = R"(
body { font-family: sans-serif; margin: 2em; color: #222; }
h1 { font-size: 1.6em; } h2 { font-size: 1.3em; margin-top: 2em; } h3 { font-size: 1.1em; }
.scroll { overflow-x: auto; margin-bottom: 1.5em; }
table { border-collapse: collapse; font-size: 0.85em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.5em; text-align: right; white-space: nowrap; }
th { background: #eee; } td:first-child, th:first-child { text-align: left; }
caption { text-align: left; font-weight: bold; padding: 0.3em 0; }
figure { margin: 1em 0; } figure img { max-width: 100%; border: 1px solid #ddd; }
table.prose td, table.prose th { white-space: normal; text-align: left; vertical-align: top; max-width: 28em; }
.note { background: #fff7e0; padding: 0.5em; border-left: 4px solid #e0b000; }
)";

void table_html(const Table& t, std::string& out) {
  out += t.prose ? "<div class=\"scroll\"><table class=\"prose\">" : "<div class=\"scroll\"><table>";
  if (!t.caption.empty()) out += "<caption>" + html_escape(t.caption) + "</caption>";
  out += "<tr>";
  for (const auto& h : t.head) out += "<th>" + html_escape(h) + "</th>";
  out += "</tr>\n";
  for (const auto& row : t.rows) {
    out += "<tr>";
    for (const auto& c : row) out += "<td>" + html_escape(c) + "</td>";
    out += "</tr>\n";
  }
  out += "</table></div>\n";
}

void sections_html(const std::vector<Section>& sections, std::string& out) {
  for (const auto& s : sections) {
    out += "<h3>" + html_escape(s.title) + "</h3>\n";
    for (const auto& p : s.paragraphs) out += "<p>" + html_escape(p) + "</p>\n";
    for (const auto& t : s.tables) table_html(t, out);
  }
}

}  // namespace

std::string html_escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string html(const Page& page) {
  std::string out = fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{0}</title>"
      "<style>{1}</style></head><body>\n<h1>{0}</h1>\n",
      html_escape(page.title), kStyle);
  for (const auto& n : page.notes) out += "<p class=\"note\">" + html_escape(n) + "</p>\n";
  if (!page.plots.warning.empty()) out += "<p class=\"note\">" + html_escape(page.plots.warning) + "</p>\n";
  for (const auto& s : page.claims) {
    out += "<h2>" + html_escape(s.title) + "</h2>\n";
    for (const auto& p : s.paragraphs) out += "<p>" + html_escape(p) + "</p>\n";
    for (const auto& t : s.tables) table_html(t, out);
  }
  if (!page.plots.figures.empty()) {
    out += "<h2>Plots</h2>\n";
    for (const auto& f : page.plots.figures)
      out += fmt::format("<figure><img src=\"plots/{0}.svg\" alt=\"{1}\"><figcaption>{1}</figcaption></figure>\n",
                         html_escape(f.name), html_escape(f.title));
  }
  out += "<h2>Summary</h2>\n";
  sections_html(page.summary, out);
  out += "<h2>Predictions</h2>\n";
  sections_html(page.predict, out);
  if (!page.trace.empty()) {
    out += "<h2>Trace</h2>\n";
    sections_html(page.trace, out);
  }
  out += "</body></html>\n";
  return out;
}

}  // namespace cgmem::report
