#include "report/load_output.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>

#include "common/json_get.h"

namespace cgmem::report {

namespace {

// The numbers of one load output, and what was wrong with them. A value
// that starts like a number but is not a plain finite decimal >= 0 (nan,
// inf, -5, 0x1p3, 12abc) is refused and noted with its line; text that is
// no number at all (a CSV header's "rps") is silently not a value.
struct Numbers {
  size_t line = 0;  // 1-based, of the line being read
  std::vector<std::string> problems;
  size_t refused = 0;

  std::optional<double> operator()(std::string_view text) {
    while (!text.empty() && (text.front() == ' ' || text.front() == '"')) text.remove_prefix(1);
    while (!text.empty() && (text.back() == ' ' || text.back() == '"' || text.back() == '\r')) text.remove_suffix(1);
    double value = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || ec == std::errc::invalid_argument) return std::nullopt;
    bool plain = ec == std::errc() && end == text.data() + text.size() && std::isfinite(value) && value >= 0 &&
                 text.front() != '-' && text.find_first_of("xX") == std::string_view::npos;
    if (plain) return value;
    if (++refused <= kMaxLoadProblems)
      problems.push_back(fmt::format("line {}: '{}' is not a finite decimal number of 0 or more; not read", line,
                                     text.substr(0, 40)));
    return std::nullopt;
  }
};

// "1.23ms", "456.78us", "1.02s" in milliseconds.
std::optional<double> wrk_ms(std::string_view text, Numbers& number) {
  double scale = 0;
  if (text.ends_with("us")) scale = 1e-3, text.remove_suffix(2);
  else if (text.ends_with("ms")) scale = 1, text.remove_suffix(2);
  else if (text.ends_with("s")) scale = 1e3, text.remove_suffix(1);
  else if (text.ends_with("m")) scale = 60e3, text.remove_suffix(1);
  if (scale == 0) return std::nullopt;
  auto v = number(text);
  if (!v) return std::nullopt;
  return *v * scale;
}

std::vector<std::string_view> split(std::string_view line, char sep) {
  std::vector<std::string_view> out;
  for (size_t start = 0;;) {
    size_t at = line.find(sep, start);
    out.push_back(line.substr(start, at == std::string_view::npos ? std::string_view::npos : at - start));
    if (at == std::string_view::npos) return out;
    start = at + 1;
  }
}

std::vector<std::string_view> words(std::string_view line) {
  std::vector<std::string_view> out;
  for (auto w : split(line, ' '))
    if (!w.empty()) out.push_back(w);
  return out;
}

std::string_view unquote(std::string_view s) {
  if (s.size() >= 2 && s.front() == '"' && s.back() == '"') return s.substr(1, s.size() - 2);
  return s;
}

// A redis-benchmark CSV row; nullopt for the header or anything else.
std::optional<LoadPoint> redis_row(std::string_view line, Numbers& number) {
  auto cells = split(line, ',');
  if (cells.size() < 2 || cells[0].size() < 3 || cells[0].front() != '"') return std::nullopt;
  LoadPoint p{.test = std::string(unquote(cells[0]))};
  p.rps = number(cells[1]);
  if (!p.rps) return std::nullopt;  // the header: "rps" is not a number
  if (cells.size() >= 8) p.avg_ms = number(cells[2]), p.p50_ms = number(cells[4]), p.p99_ms = number(cells[6]),
                         p.max_ms = number(cells[7]);
  return p;
}

// pgbench and wrk print one summary per run: a point is complete at its
// throughput line (tps = / Requests/sec:), which comes last.
struct SummaryReader {
  LoadPoint pending;
  bool pgbench = false, wrk = false;

  std::optional<LoadPoint> line(std::string_view l, Numbers& number) {
    auto w = words(l);
    if (w.empty()) return std::nullopt;
    if (w.size() >= 4 && w[0] == "latency" && w[1] == "average" && w[2] == "=") pending.avg_ms = number(w[3]), pgbench = true;
    if (w.size() >= 3 && w[0] == "tps" && w[1] == "=") {
      pgbench = true;
      return take(number(w[2]));
    }
    // "Latency Distribution" heads wrk's percentiles: only a time is a value.
    if (w.size() >= 2 && w[0] == "Latency")
      if (auto ms = wrk_ms(w[1], number)) pending.avg_ms = ms, wrk = true;
    if (w.size() == 2 && w[0] == "50%") pending.p50_ms = wrk_ms(w[1], number);
    if (w.size() == 2 && w[0] == "99%") pending.p99_ms = wrk_ms(w[1], number);
    if (w.size() >= 2 && w[0] == "Requests/sec:") {
      wrk = true;
      return take(number(w[1]));
    }
    return std::nullopt;
  }
  std::optional<LoadPoint> take(std::optional<double> rps) {
    LoadPoint p = pending;
    pending = {};
    if (!rps) return std::nullopt;
    p.rps = rps;
    return p;
  }
};

}  // namespace

std::vector<LoadTime> parse_load_times(std::string_view text) {
  std::vector<LoadTime> out;
  for (auto line : split(text, '\n')) {
    if (line.empty()) continue;
    Json j = Json::parse(line, nullptr, false);
    auto t = get_u64(j, "t_ns");
    auto bytes = get_u64(j, "bytes");
    if (t && bytes) out.push_back({static_cast<double>(*t) / 1e9, *bytes});
  }
  return out;
}

LoadOutput parse_load_output(std::string_view text, const std::vector<LoadTime>& times) {
  LoadOutput out;
  SummaryReader summary;
  Numbers number;
  size_t offset = 0;
  for (auto line : split(text, '\n')) {
    ++number.line;
    uint64_t line_end = offset + line.size() + 1;  // with its newline
    offset = line_end;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    std::optional<LoadPoint> point = redis_row(line, number);
    if (point) out.format = "redis-benchmark-csv";
    else if ((point = summary.line(line, number))) out.format = summary.wrk ? "wrk" : "pgbench";
    if (!point) continue;
    // A round in which no request completed has nothing to time: wrk then
    // prints "Latency 0.00us", which is not a latency of 0.
    if (point->rps == 0.0) point->avg_ms = point->p50_ms = point->p99_ms = point->max_ms = std::nullopt;
    // The first read that reached this line's end.
    auto when = std::lower_bound(times.begin(), times.end(), line_end,
                                 [](const LoadTime& t, uint64_t end) { return t.bytes < end; });
    if (when != times.end()) point->t_s = when->t_s;
    out.points.push_back(std::move(*point));
  }
  out.problems = std::move(number.problems);
  if (number.refused > kMaxLoadProblems)
    out.problems.push_back(fmt::format("{} more values refused", number.refused - kMaxLoadProblems));
  return out;
}

}  // namespace cgmem::report
