#include "cli/cmd_top_table.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "common/duration.h"
#include "common/text.h"
#include "watch/render.h"

namespace cgmem::cli {
namespace {

using watch::Row;

constexpr size_t kMinWidth = 80;
// Every column but the cgroup's, with the spaces before them.
constexpr size_t kFixed = 1 + 10 + 1 + 7 + 1 + 6 + 1 + 6 + 1 + 5 + 1 + 5 + 1 + 4 + 1 + 5 + 1 + 5;

std::string limit_text(const Limit& l) { return l.is_max() ? "max" : compact_bytes(l.bytes()); }

// The tail of a long path, which says more than its head: "..e/very/deep".
// The path is shown escaped (common/text.h visible()), and a UTF-8
// sequence is never cut in two.
std::string fit_left(std::string_view path, size_t width) {
  std::string text = visible(path);
  if (text.size() <= width) return text;
  size_t from = text.size() - (width - 2);
  while (from < text.size() && (static_cast<unsigned char>(text[from]) & 0xC0) == 0x80) ++from;
  return ".." + text.substr(from);
}

// CURRENT, HIGH, MAX: "?" for a value that was not read (state unknown).
std::string current_text(const watch::Sample& s) {
  return s.has(watch::File::current) ? compact_bytes(s.current) : "?";
}
std::string limit_text(const watch::Sample& s, watch::File f, const Limit& l) {
  return s.trusted(f) ? limit_text(l) : "?";
}

std::string rate_text(double v) {
  if (v <= 0) return "0";
  if (v < 10) return fmt::format("{:.1f}", v);
  if (v < 99999) return fmt::format("{:.0f}", v);
  return fmt::format("{:.0f}k", v / 1000);
}

std::string eta_text(const watch::Forecast& f) {
  if (!f.max_eta_s) return "-";
  std::string s = format_duration(*f.max_eta_s, DurationStyle::compact);
  return s.size() <= 4 ? s : s.substr(0, 4);
}

double over_high(const Row& r) {
  const auto& s = r.sample;
  if (s.high.is_max() || s.high.bytes() == 0) return -1;
  return (double(s.current) - double(s.high.bytes())) / double(s.high.bytes());
}

}  // namespace

std::string compact_bytes(uint64_t bytes) {
  static constexpr const char* kUnits[] = {"", "K", "M", "G", "T", "P"};
  double v = double(bytes);
  size_t unit = 0;
  while (v >= 1024 && unit + 1 < std::size(kUnits)) v /= 1024, ++unit;
  if (unit == 0) return fmt::format("{}", bytes);
  if (v < 100 && std::fmod(v, 1.0) != 0) return fmt::format("{:.1f}{}", v, kUnits[unit]);
  return fmt::format("{:.0f}{}", v, kUnits[unit]);
}

std::vector<const Row*> sorted_rows(std::span<const Row> rows, TopSort sort, const std::string& filter) {
  std::vector<const Row*> out;
  for (const Row& r : rows)
    if (filter.empty() || r.path.find(filter) != std::string_view::npos) out.push_back(&r);
  std::stable_sort(out.begin(), out.end(), [sort](const Row* a, const Row* b) {
    if (sort == TopSort::current && a->sample.current != b->sample.current)
      return a->sample.current > b->sample.current;
    if (sort == TopSort::severity) {
      if (severity(a->state) != severity(b->state)) return severity(a->state) > severity(b->state);
      if (over_high(*a) != over_high(*b)) return over_high(*a) > over_high(*b);
    }
    return a->path < b->path;
  });
  return out;
}

std::vector<TopLine> top_lines(std::span<const Row* const> rows, size_t width) {
  width = std::max(width, kMinWidth);
  size_t name = width - kFixed;
  std::vector<TopLine> out;
  std::string header = fmt::format("{:<{}} {:<10} {:>7} {:>6} {:>6} {:>5} {:>5} {:>4} {:>5} {:>5}",
                                   "CGROUP", name, "STATE", "CURRENT", "HIGH", "MAX", "SLP/S", "SLEEP",
                                   ">MAX", "PSI", "RFLT/");
  out.push_back({.text = header, .header = true});
  for (const Row* r : rows) {
    const auto& s = r->sample;
    const auto& f = r->forecast;
    bool have_rates = r->rates.dt_s > 0;
    double sleep = f.sleep_wheel_s > 0 ? f.sleep_wheel_s : f.sleep_s;
    std::string psi = fmt::format("{:.0f}/{:.0f}", s.memory.some_avg10, s.memory.full_avg10);
    TopLine line;
    line.text = fmt::format(
        "{:<{}} {:<10} {:>7} {:>6} {:>6} {:>5} {:>5} {:>4} {:>5} {:>5}", fit_left(r->path, name), name,
        watch::state_name(r->state), current_text(s), limit_text(s, watch::File::high, s.high),
        limit_text(s, watch::File::max, s.max),
        have_rates ? rate_text(r->rates.sleeps_per_s) : "-", sleep > 0 ? format_duration(sleep, DurationStyle::compact) : "-",
        eta_text(f), psi.size() <= 5 ? psi : fmt::format("{:.0f}", s.memory.some_avg10),
        have_rates ? rate_text(r->rates.refaults_per_s) : "-");
    line.state = r->state;
    line.state_column = name + 1;
    line.state_width = watch::state_name(r->state).size();
    out.push_back(std::move(line));
    for (size_t i = 0; i < r->tasks.listed; ++i) {
      const auto& t = r->tasks.d[i];
      std::string more = i + 1 == r->tasks.listed && r->tasks.in_d > r->tasks.listed
                             ? fmt::format(" (+{} more in D)", r->tasks.in_d - r->tasks.listed)
                             : "";
      std::string text = fmt::format("  D {} {}: {}{}", t.pid, visible(t.comm_view()),
                                     t.wchan_view().empty() ? "-" : visible(t.wchan_view()), more);
      out.push_back({.text = std::string(utf8_prefix(text, width)), .state = r->state, .detail = true});
    }
  }
  return out;
}

}  // namespace cgmem::cli
