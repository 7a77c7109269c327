#include "advise/prometheus.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>

namespace cgmem::advise {
namespace {

using nlohmann::json;

constexpr size_t kMaxSelector = 1024;
constexpr double kMaxPoints = 10000;  // Prometheus answers at most 11000 a series
constexpr double kDay = 86400;

std::string seconds_text(double s) { return fmt::format("{}s", static_cast<uint64_t>(std::ceil(s))); }

// j[key] when j is an object that has it, else null: the server's answer is
// input like any other, and nlohmann's operator[] throws on a non-object.
const json& field(const json& j, const char* key) {
  static const json none;
  if (!j.is_object()) return none;
  auto it = j.find(key);
  return it == j.end() ? none : *it;
}

std::string cgroup_label(const json& series, const std::string& otherwise) {
  const json& name = field(field(series, "metric"), "cgroup");
  return name.is_string() ? name.get<std::string>() : otherwise;
}

// The API's answer's data.result, or why there is none.
Result<json> result_of(const Result<std::string>& body, const std::string& what) {
  if (!body) return std::unexpected(body.error());
  json j = json::parse(*body, nullptr, false);
  if (!j.is_object()) return fail(fmt::format("Prometheus answered {} with something that is not JSON", what));
  const json& status = field(j, "status");
  if (status != "success") {
    const json& why = field(j, "error");
    return fail(fmt::format("Prometheus refused {}: {}", what,
                            why.is_string() ? why.get<std::string>().substr(0, 300) : "no reason given"));
  }
  const json& result = field(field(j, "data"), "result");
  if (!result.is_array()) return fail(fmt::format("Prometheus answered {} without data.result", what));
  return result;
}

// A sample's value, which the API writes as a string ("NaN", "+Inf" too).
std::optional<double> value_of(const json& pair) {
  if (!pair.is_array() || pair.size() != 2 || !pair[0].is_number() || !pair[1].is_string()) return std::nullopt;
  const std::string& text = pair[1].get_ref<const std::string&>();
  char* end = nullptr;
  double v = std::strtod(text.c_str(), &end);
  // Bytes below 2^63, as the kernel's counters are.
  if (end == text.c_str() || *end != '\0' || !std::isfinite(v) || v < 0 || v >= 9.2e18) return std::nullopt;
  return v;
}

// The one series a query must return: refused when none or several match.
Result<json> one_series(const json& result, const PromOptions& o, const std::string& what) {
  if (result.empty())
    return fail(fmt::format("no series of {} matched {} over the last {}: is cgmem exporter scraped, and is the "
                            "cgroup label right?",
                            what, o.selector, seconds_text(o.range_s)));
  if (result.size() > 1) {
    std::string names;
    for (size_t i = 0; i < std::min<size_t>(result.size(), 5); ++i)
      names += (i ? ", " : "") + cgroup_label(result[i], "?");
    return fail(fmt::format("{} matched {} series ({}{}): narrow the selector to one cgroup", o.selector,
                            result.size(), names, result.size() > 5 ? ", ..." : ""));
  }
  if (!field(result[0], "values").is_array() && !field(result[0], "value").is_array())
    return fail(fmt::format("Prometheus answered {} with a series without values", what));
  return result[0];
}

Result<json> range_query(const PromGet& get, const PromOptions& o, const std::string& query, const std::string& what) {
  double step = std::max(1.0, std::ceil(o.range_s / kMaxPoints));
  std::string path = fmt::format("/api/v1/query_range?query={}&start={:.3f}&end={:.3f}&step={}", url_encoded(query),
                                 o.end_s - o.range_s, o.end_s, seconds_text(step));
  auto result = result_of(get(path), what);
  if (!result) return std::unexpected(result.error());
  return one_series(*result, o, what);
}

std::optional<double> instant(const PromGet& get, const PromOptions& o, const std::string& query) {
  auto result = result_of(get(fmt::format("/api/v1/query?query={}&time={:.3f}", url_encoded(query), o.end_s)), query);
  if (!result || result->size() != 1) return std::nullopt;
  return value_of(field((*result)[0], "value"));
}

}  // namespace

Result<void> check_selector(const std::string& s) {
  bool shaped = s.size() >= 2 && s.size() <= kMaxSelector && s.front() == '{' && s.back() == '}' &&
                std::count(s.begin(), s.end(), '{') == 1 && std::count(s.begin(), s.end(), '}') == 1;
  if (!shaped)
    return fail(fmt::format("--selector '{}' is not one {{...}} of label matchers", s.substr(0, 80)), {},
                "for example --selector '{cgroup=\"/system.slice/app.service\"}'");
  return {};
}

std::string url_encoded(const std::string& text) {
  std::string out;
  for (unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') out += static_cast<char>(c);
    else out += fmt::format("%{:02X}", c);
  }
  return out;
}

Result<PromUsage> prometheus_usage(const PromOptions& o, const PromGet& get) {
  if (auto ok = check_selector(o.selector); !ok) return std::unexpected(ok.error());
  const std::string& sel = o.selector;
  std::string current = "cgmem_memory_current_bytes" + sel;
  std::string ws_query = o.kind == WorkingSet::memory_current
                             ? current
                             : fmt::format("clamp_min({} - cgmem_memory_inactive_file_bytes{}, 0)", current, sel);
  auto ws = range_query(get, o, ws_query, "the working set");
  if (!ws) return std::unexpected(ws.error());
  auto cur = range_query(get, o, current, "memory.current");
  if (!cur) return std::unexpected(cur.error());

  PromUsage out{.usage = {.dir = cgroup_label(*ws, sel), .kernel = o.kernel, .hz = o.hz,
                          .page_size = o.page_size, .host_swap = o.host_swap}};
  Usage& u = out.usage;
  const json& values = field(*ws, "values");
  if (!values.is_array()) return fail("Prometheus answered the working set without values");
  std::optional<double> first_t;
  std::vector<uint64_t> day_peak;
  for (const json& pair : values) {
    auto v = value_of(pair);
    if (!v) continue;
    double t = pair[0].get<double>();
    // Only the range asked for (a day of slack): a point elsewhere is not this history's.
    if (!(t >= o.end_s - o.range_s - kDay && t <= o.end_s + kDay) || (first_t && t < *first_t)) continue;
    if (!first_t) first_t = t;
    u.series.push_back({.t_s = t - *first_t, .working_set = static_cast<uint64_t>(*v)});
    // 24 h intervals counted back from the range's end, as the VPA's aggregation windows.
    size_t day = static_cast<size_t>(std::max(0.0, (o.end_s - t) / kDay));
    if (day >= day_peak.size()) day_peak.resize(day + 1, 0);
    day_peak[day] = std::max(day_peak[day], static_cast<uint64_t>(*v));
  }
  for (auto it = day_peak.rbegin(); it != day_peak.rend(); ++it)
    if (*it > 0) out.daily_peaks.push_back(*it);
  if (const json& cv = field(*cur, "values"); cv.is_array())
    for (const json& pair : cv)
      if (auto v = value_of(pair)) u.peak_current = std::max(u.peak_current, static_cast<uint64_t>(*v));

  std::string range = seconds_text(o.range_s);
  auto shaped = instant(get, o, fmt::format("increase(cgmem_memory_events_high_total{}[{}]) + "
                                            "increase(cgmem_memory_events_max_total{}[{}])",
                                            sel, range, sel, range));
  if (shaped && *shaped > 0)
    return fail(fmt::format("{}: its limits shaped its usage over the range ({:.0f} memory.high and memory.max "
                            "events): what it used is what they allowed",
                            u.dir, *shaped));
  auto high = instant(get, o, "cgmem_memory_high_bytes" + sel), max = instant(get, o, "cgmem_memory_max_bytes" + sel);
  if ((high && std::isfinite(*high)) || (max && std::isfinite(*max)))
    out.notes.push_back(fmt::format("the cgroup has limits (memory.high {}, memory.max {}); neither was reached over "
                                    "the range",
                                    high ? format_bytes(static_cast<uint64_t>(*high)) : "max",
                                    max ? format_bytes(static_cast<uint64_t>(*max)) : "max"));
  out.notes.push_back(fmt::format("from Prometheus: {} points over {}, {} daily peak{} for the VPA rule",
                                  u.series.size(), range, out.daily_peaks.size(),
                                  out.daily_peaks.size() == 1 ? "" : "s"));
  if (auto ok = summarize(u); !ok) return std::unexpected(ok.error());
  return out;
}

}  // namespace cgmem::advise
