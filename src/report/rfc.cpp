#include "report/rfc.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "model/predict.h"

namespace cgmem::report {

namespace {

bool is_set(const std::optional<Limit>& l) { return l && !l->is_max(); }

double since_start(const Run& run, int64_t t_ns) {
  return static_cast<double>(t_ns - run.meta.started_mono_ns) / 1e9;
}

// The ends of the first op over memory.high and of the first op within one
// chunk of memory.max (the next chunk would not fit). Ops of several
// processes interleave, so the earliest end counts, not the first line.
void edges(const Run& run, uint64_t high, uint64_t max, RfcRun& out) {
  std::optional<int64_t> over_high, at_max;
  for (const Op& op : run.ops) {
    int64_t end = op.end_ns();
    if (op.current_after > high && (!over_high || end < *over_high)) over_high = end;
    if (op.current_after + run.meta.chunk_bytes > max && (!at_max || end < *at_max)) at_max = end;
  }
  if (over_high) out.reached_high_s = since_start(run, *over_high);
  if (at_max) out.reached_max_s = since_start(run, *at_max);
  if (!over_high || !at_max) return;
  uint64_t ops = 0, rise = 0;
  for (const Op& op : run.ops) {
    if (int64_t end = op.end_ns(); end <= *over_high || end > *at_max) continue;
    ++ops;
    if (op.high_after > op.high_before) rise += op.high_rise();
  }
  if (ops)
    out.climb_sleeps_per_op = static_cast<double>(rise) / static_cast<double>(model::kHighEventsPerSleep) /
                              static_cast<double>(ops);
}

RfcRun rfc_run(const Run& run) {
  const OutcomeRecord& o = *run.outcome;
  RfcRun r{.name = run.meta.name, .kernel = run.meta.kernel, .hz = run.meta.hz};
  auto kills = o.events.find("oom_kill");
  r.killed = o.is(run_format::Status::oom_killed) || (kills != o.events.end() && kills->second > 0);
  r.duration_s = r.killed && o.time_to_kill_s ? *o.time_to_kill_s : o.duration_s;
  if (auto high = o.events.find("high"); high != o.events.end()) r.events_high = high->second;
  edges(run, run.meta.high->bytes(), run.meta.max->bytes(), r);
  return r;
}

model::Throttle throttle_of(const Meta& m, uint64_t high, uint32_t shift) {
  return {.kernel = {.hz = static_cast<uint32_t>(m.hz > 0 ? m.hz : 1000), .page_size = m.page_size}, .high = high,
          .shift = shift};
}

void predict_row(RfcRow& row, const Meta& m) {
  model::Throttle t = throttle_of(m, row.high, row.shift);
  row.model_batch_s = model::grow(t, row.high, row.max).seconds;
  t.sleeps_per_batch = t.kernel.batch;
  row.model_page_s = model::grow(t, row.high, row.max).seconds;
}

template <class F>
std::string runs_range(const RfcRow& row, F value, bool killed_only = true) {
  Range r;
  for (const auto& run : row.runs)
    if (run.killed || !killed_only) r.add(value(run));
  return range(r);
}

std::string kill_cell(const RfcRow& row) {
  size_t killed = std::count_if(row.runs.begin(), row.runs.end(), [](const RfcRun& r) { return r.killed; });
  if (killed) return runs_range(row, [](const RfcRun& r) { return std::optional(r.duration_s); });
  return fmt::format("not killed in {}", runs_range(row, [](const RfcRun& r) { return std::optional(r.duration_s); }, false));
}

std::optional<double> climb_over_model(const RfcRun& run, const RfcRow& row) {
  auto climb = run.climb_s();
  if (!climb || !row.model_batch_s || *row.model_batch_s <= 0) return std::nullopt;
  return *climb / *row.model_batch_s;
}

// The measured figures behind "where they differ", over the killed runs.
std::vector<std::string> differences(const RfcComparison& c) {
  Range at_max_share, climb_ratio, before_high, climb_sleeps;
  std::optional<uint32_t> first_no_sleep;
  for (const auto& row : c.rows) {
    if (!first_no_sleep && row.model_batch_s && *row.model_batch_s == 0) first_no_sleep = row.shift;
    for (const auto& run : row.runs) {
      if (!run.killed) continue;
      if (auto at = run.at_max_s(); at && run.duration_s > 0) at_max_share.add(*at / run.duration_s);
      climb_ratio.add(climb_over_model(run, row));
      before_high.add(run.reached_high_s);
      climb_sleeps.add(run.climb_sleeps_per_op);
    }
  }
  std::vector<std::string> out;
  out.push_back(fmt::format(
      "Where they differ. The model counts only the sleeps of the climb from memory.high to memory.max; the "
      "measured time to the kill (and the RFC's) also holds the program's own work before memory.high ({} s "
      "here) and the time after memory.current first reached memory.max, while reclaim swaps pages out until "
      "memory.swap.max is full and the charge fails into the OOM killer: {} of the time to the kill here. The "
      "measured climb alone is {} times the model's, which has one sleep per 256 KiB op: the ops of the climb "
      "slept {} times each (their high counter rises / 17).",
      range(before_high), range(at_max_share, percent), range(climb_ratio), range(climb_sleeps)));
  std::string floor = first_no_sleep
                          ? fmt::format("From shift {} on, the shifted penalty is at most HZ/100 jiffies and the "
                                        "model has no sleep left at all",
                                        *first_no_sleep)
                          : "At high shifts the model's sleeps shrink toward none";
  out.push_back(fmt::format(
      "{}; what remains is the program's own allocation, reclaim and swap-out, a floor of about "
      "0.65 s for the RFC's program on its hardware and more under software emulation. At low shifts most sleeps "
      "sit at the 2 s cap, which the shift does not move until it brings them under it, so the first shifts change "
      "little. The RFC's program \"allocates pages from kernel continuously\" and its table is one sample per "
      "shift; the runs here map and touch 256 KiB chunks.",
      floor));
  return out;
}

}  // namespace

std::optional<double> rfc_seconds(uint32_t shift) {
  for (const auto& p : kRfcTable)
    if (p.shift == shift) return p.seconds;
  return std::nullopt;
}

std::optional<double> RfcRun::climb_s() const {
  if (!reached_high_s || !reached_max_s || *reached_max_s < *reached_high_s) return std::nullopt;
  return *reached_max_s - *reached_high_s;
}

std::optional<double> RfcRun::at_max_s() const {
  if (!killed || !reached_max_s || duration_s < *reached_max_s) return std::nullopt;
  return duration_s - *reached_max_s;
}

RfcComparison compare_rfc(const std::vector<Run>& runs) {
  RfcComparison c;
  std::map<std::tuple<uint32_t, uint64_t, uint64_t>, RfcRow> rows;
  std::set<std::string> kernels;
  const Meta* first = nullptr;
  for (const auto& run : runs) {
    const Meta& m = run.meta;
    if (!m.high_throttle || !is_set(m.high) || !is_set(m.max) || !run.outcome) continue;
    auto key = std::tuple(*m.high_throttle, m.high->bytes(), m.max->bytes());
    auto it = rows.find(key);
    if (it == rows.end()) {
      RfcRow row{.shift = *m.high_throttle, .high = m.high->bytes(), .max = m.max->bytes(),
                 .rfc_s = rfc_seconds(*m.high_throttle)};
      predict_row(row, m);
      it = rows.emplace(key, std::move(row)).first;
    }
    it->second.runs.push_back(rfc_run(run));
    if (!first) first = &m;
    kernels.insert(fmt::format("{} {}", m.kernel, m.hz));
    // The kernel rounds memory.high and memory.max down to pages: 10M and 20M stay exact.
    c.rfc_setup = c.rfc_setup && m.high->bytes() == kRfcHigh && m.max->bytes() == kRfcMax &&
                  is_set(m.swap_max) && m.swap_max->bytes() == kRfcSwapMax;
  }
  for (auto& [key, row] : rows) c.rows.push_back(std::move(row));
  c.mixed_kernels = kernels.size() > 1;
  if (first) {
    uint32_t last = 0;
    for (const auto& row : c.rows) last = std::max(last, row.shift);
    for (uint32_t shift = 0; shift <= last; ++shift) {
      model::Throttle t = throttle_of(*first, first->high->bytes(), shift);
      c.model_curve.push_back({shift, model::grow(t, first->high->bytes(), first->max->bytes()).seconds});
    }
  }
  return c;
}

Section rfc_section(const RfcComparison& c) {
  Section s{.title = "6. The RFC's memory.high.throttle: time to the OOM kill per shift"};
  s.paragraphs.push_back(
      "Runs that set memory.high.throttle (the RFC \"mm, memcg: introduce memory.high.throttle\", a kernel with "
      "its patch): the measured time from the start to the OOM kill per shift, the RFC's own table (memory.high "
      "10M, memory.max 20M, memory.swap.max 10M) and the model's time to climb from memory.high to memory.max, one "
      "sleep per 64-page batch (`cgmem model table`). The measured time is split into its parts: until the first op "
      "over memory.high, the climb to within one chunk of memory.max, and the rest until the kill.");
  if (!c.rfc_setup)
    s.paragraphs.push_back("Not every run had the RFC's limits (10M, 20M, swap.max 10M): its column is for "
                           "comparison of shape only.");
  for (auto& p : differences(c)) s.paragraphs.push_back(std::move(p));
  Table t{.head = {"shift", "memory.high", "memory.max", "runs", "killed", "time to kill (s)", "RFC (s)",
                   "model, per batch (s)", "before memory.high (s)", "climb to memory.max (s)", "at memory.max (s)",
                   "climb / model", "high events"}};
  if (c.mixed_kernels) t.head.push_back("kernel (HZ)");
  for (const auto& row : c.rows) {
    size_t killed = std::count_if(row.runs.begin(), row.runs.end(), [](const RfcRun& r) { return r.killed; });
    std::vector<std::string> cells = {
        std::to_string(row.shift), mib(static_cast<double>(row.high)), mib(static_cast<double>(row.max)),
        std::to_string(row.runs.size()), std::to_string(killed), kill_cell(row), num(row.rfc_s),
        num(row.model_batch_s),
        runs_range(row, [](const RfcRun& r) { return r.reached_high_s; }, false),
        runs_range(row, [](const RfcRun& r) { return r.climb_s(); }, false),
        runs_range(row, [](const RfcRun& r) { return r.at_max_s(); }),
        runs_range(row, [&](const RfcRun& r) { return climb_over_model(r, row); }, false),
        runs_range(row, [](const RfcRun& r) { return std::optional(static_cast<double>(r.events_high)); }, false)};
    if (c.mixed_kernels) {
      std::set<std::string> k;
      for (const auto& r : row.runs) k.insert(fmt::format("{} ({})", r.kernel, r.hz));
      cells.push_back(fmt::format("{}", fmt::join(k, ", ")));
    }
    t.rows.push_back(std::move(cells));
  }
  s.tables.push_back(std::move(t));
  return s;
}

nlohmann::json rfc_json(const RfcComparison& c) {
  using nlohmann::json;
  auto opt = [](std::optional<double> v) { return v ? json(*v) : json(nullptr); };
  json rows = json::array();
  for (const auto& row : c.rows) {
    json runs = json::array();
    for (const auto& r : row.runs)
      runs.push_back({{"name", r.name}, {"kernel", r.kernel}, {"hz", r.hz}, {"killed", r.killed},
                      {"duration_s", r.duration_s}, {"reached_high_s", opt(r.reached_high_s)},
                      {"reached_max_s", opt(r.reached_max_s)}, {"climb_s", opt(r.climb_s())},
                      {"at_max_s", opt(r.at_max_s())}, {"climb_sleeps_per_op", opt(r.climb_sleeps_per_op)},
                      {"events_high", r.events_high}});
    rows.push_back({{"shift", row.shift}, {"high", row.high}, {"max", row.max}, {"rfc_s", opt(row.rfc_s)},
                    {"model_batch_s", opt(row.model_batch_s)}, {"model_page_s", opt(row.model_page_s)},
                    {"runs", std::move(runs)}});
  }
  return {{"rfc_setup", c.rfc_setup}, {"mixed_kernels", c.mixed_kernels}, {"rows", std::move(rows)}};
}

}  // namespace cgmem::report
