#include "report/document.h"

#include <fmt/format.h>

#include <cmath>

namespace cgmem::report {

std::string num(std::optional<double> v) {
  if (!v || std::isnan(*v)) return "-";
  double a = std::fabs(*v);
  if (a == 0) return "0";
  if (a >= 100) return fmt::format("{:.0f}", *v);
  if (a >= 10) return fmt::format("{:.1f}", *v);
  if (a >= 1) return fmt::format("{:.2f}", *v);
  return fmt::format("{:.3g}", *v);
}

std::string num_fixed(std::optional<double> v, int decimals) {
  if (!v || std::isnan(*v)) return "-";
  return fmt::format("{:.{}f}", *v, decimals);
}

std::string mib(std::optional<double> bytes) {
  if (!bytes) return "-";
  return fmt::format("{:.1f} MiB", *bytes / 1048576.0);
}

std::string percent(std::optional<double> share) {
  if (!share) return "-";
  return fmt::format("{:.0f}%", *share * 100);
}

std::string range(const Range& r, std::string (*f)(std::optional<double>)) {
  if (r.empty()) return "-";
  std::string lo = f(r.lo), hi = f(r.hi);
  return lo == hi ? lo : fmt::format("{} to {}", lo, hi);
}

namespace {

std::string cell(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '|') out += "\\|";
    else if (c == '\n') out += ' ';
    else out += c;
  }
  return out.empty() ? "-" : out;
}

void table_md(const Table& t, std::string& out) {
  if (!t.caption.empty()) out += fmt::format("**{}**\n\n", t.caption);
  out += "|";
  for (const auto& h : t.head) out += fmt::format(" {} |", cell(h));
  out += "\n|";
  for (size_t i = 0; i < t.head.size(); ++i) out += i == 0 || t.prose ? "---|" : "---:|";
  out += "\n";
  for (const auto& row : t.rows) {
    out += "|";
    for (const auto& c : row) out += fmt::format(" {} |", cell(c));
    out += "\n";
  }
  out += "\n";
}

}  // namespace

std::string markdown(const std::string& title, const std::vector<Section>& sections,
                     const std::vector<std::string>& preface) {
  std::string out = fmt::format("# {}\n\n", title);
  for (const auto& p : preface) out += p + "\n\n";
  for (const auto& s : sections) {
    out += fmt::format("## {}\n\n", s.title);
    for (const auto& p : s.paragraphs) out += p + "\n\n";
    for (const auto& t : s.tables) table_md(t, out);
  }
  return out;
}

}  // namespace cgmem::report
