#include "report/predict_view.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

namespace cgmem::report {

namespace {

std::string count(uint64_t v) { return std::to_string(v); }
std::string ratio3(std::optional<double> v) { return num_fixed(v, 3); }

Section sleeps_section(const std::vector<RunPrediction>& runs) {
  Section s{.title = "1. Sleeps per op and the length of each sleep"};
  s.paragraphs.push_back(
      "Sleeps per op = rise of memory.events high during the op / 17 (one reclaim and 16 retries "
      "before each sleep); ops whose rise is not a multiple of 17 are skipped and counted, and "
      "among them the rises of 17k + 1 (on 6.12 the lab measured rises of 18 and 1089). The "
      "formula is the kernel's penalty for one 64-page batch at the op's mean memory.current, "
      "clamped to 2 x HZ, zero when it is HZ/100 jiffies or less. Ratio = latency / (sleeps x "
      "formula); \"+ half step\" adds half the timer wheel's step for that sleep length to each sleep. "
      "Late per sleep = the median of latency / sleeps - (formula + half a step), in ms.");
  Table t{.head = {"run", "config", "HZ", "ops", "ops with a rise", "skipped (not x17)", "of them 17k+1",
                   "formula: no sleep", "compared", "median ratio", "within 30%",
                   "median ratio + half step", "+ half step, step 1 jiffy", "+ half step, longer sleeps",
                   "late per sleep (ms)"}};
  for (const auto& r : runs) {
    if (!r.sleeps) continue;
    const auto& c = *r.sleeps;
    t.rows.push_back({r.name, r.config, std::to_string(r.hz), count(c.ops), count(c.ops_with_rise),
                      count(c.skipped_not_multiple), count(c.skipped_one_over), count(c.formula_no_sleep),
                      count(c.compared), ratio3(c.median_ratio), percent(c.within_30), ratio3(c.median_ratio_wheel),
                      ratio3(c.median_ratio_wheel_level0), ratio3(c.median_ratio_wheel_upper),
                      num(c.median_late_ms)});
  }
  s.tables.push_back(std::move(t));
  return s;
}

// Sleeps per 64 pages by formula-sleep bin, summed over the runs of each
// workload and config.
Section bins_section(const std::vector<RunPrediction>& runs) {
  Section s{.title = "1b. Sleeps per 64 pages by formula sleep length"};
  s.paragraphs.push_back(
      "Each compared op counts once, in the bin of its formula sleep; sleeps per 64 pages = sleeps "
      "x 64 / pages the op charged (64 for a 256 KiB op, 1 for an own_high op). The first bin "
      "starts at the shortest sleep the kernel takes at that HZ (HZ/100 + 1 jiffies). A run with rises "
      "of 17k + 1 (6.12's extra high event) has them counted as k sleeps here, as the claims read them.");
  std::map<std::pair<std::string, std::string>, std::vector<SleepBin>> merged;
  std::vector<std::pair<std::string, std::string>> order;
  for (const auto& r : runs) {
    if (!r.sleeps || r.bins.empty()) continue;
    auto key = std::make_pair(r.workload, r.config);
    auto [it, fresh] = merged.try_emplace(key, r.bins);
    if (fresh) {
      order.push_back(key);
      continue;
    }
    for (size_t i = 0; i < it->second.size() && i < r.bins.size(); ++i) {
      auto& v = it->second[i].sleeps_per_batch;
      v.insert(v.end(), r.bins[i].sleeps_per_batch.begin(), r.bins[i].sleeps_per_batch.end());
    }
  }
  for (const auto& key : order) {
    Table t{.caption = fmt::format("{}, {}", key.first, key.second),
            .head = {"formula sleep", "ops", "median sleeps per 64 pages", "ops with 64 or more"}};
    for (const auto& b : merged[key]) {
      const auto& v = b.sleeps_per_batch;
      auto many = std::count_if(v.begin(), v.end(), [](double x) { return x >= 64; });
      std::optional<double> share;
      if (!v.empty()) share = static_cast<double>(many) / static_cast<double>(v.size());
      t.rows.push_back({fmt::format("{:g} to {:g} ms", b.lo_ms, b.hi_ms), count(v.size()),
                        num(median(v)), percent(share)});
    }
    s.tables.push_back(std::move(t));
  }
  return s;
}

Section phases_section(const std::vector<RunPrediction>& runs) {
  Section s{.title = "1c. Phases: one sleep per batch or one per page"};
  s.paragraphs.push_back(
      "Throttled time = the latency of every op that slept. The share is the part of it in ops "
      "with 32 or more sleeps. A run stopped at its cap or killed counts the op it was in (in flight: "
      "from the last logged op's end to the last sample that saw the workload, or to the kill; its "
      "sleeps are the rise of the high counter over that time / 17); such values are marked *.");
  Table t{.head = {"run", "config", "median sleeps per op (formula >= 50 ms)",
                   "throttled time in ops with >= 32 sleeps", "op in flight: sleeps so far"}};
  for (const auto& r : runs) {
    if (!r.sleeps) continue;
    const auto& c = *r.sleeps;
    std::string mark = c.in_flight ? "*" : "";
    t.rows.push_back({r.name, r.config, num(c.median_sleeps_50ms) + mark, percent(c.slow_phase_share) + mark,
                      c.in_flight_sleeps ? count(*c.in_flight_sleeps) : "-"});
  }
  s.tables.push_back(std::move(t));
  return s;
}

Section kill_section(const std::vector<RunPrediction>& runs) {
  Section s{.title = "3. Time to the OOM kill"};
  s.paragraphs.push_back(
      "From the first op that slept (its start time and memory.current) to memory.max, the sum of "
      "the formula's sleeps at each usage: one sleep per 4 KiB page, or one per 64-page batch; "
      "divided by the number of processes. Predicted times count from the run's start. When no "
      "logged op slept, sleeping starts with the op in flight at the stop (marked *). Regime: the "
      "one the run showed in 1c (per page when half or more of its throttled time was in ops with "
      "32 or more sleeps); measured / model compares with it. Own time: the ops from there to "
      "memory.max at the unthrottled latency of section 4, which the model leaves out.");
  Table t{.head = {"run", "config", "sleeping starts (s)", "at memory.current", "memory.max",
                   "predicted, per page (s)", "predicted, per batch (s)", "measured (s)", "regime seen",
                   "measured / model", "own time (s)"}};
  for (const auto& r : runs) {
    if (!r.kill) continue;
    const auto& k = *r.kill;
    std::string measured = k.measured_s ? num(*k.measured_s) : fmt::format("not killed in {}", num(k.duration_s));
    std::optional<double> ratio;
    double model = k.per_page.value_or(true) ? k.predicted_page_s : k.predicted_batch_s;
    if (k.measured_s && k.per_page && model > 0) ratio = *k.measured_s / model;
    std::string regime = k.per_page ? (*k.per_page ? "per page" : "per batch") : "-";
    t.rows.push_back({r.name, r.config, num(k.sleep_start_s) + (k.start_in_flight ? "*" : ""),
                      mib(static_cast<double>(k.sleep_start_bytes)), mib(static_cast<double>(k.max_bytes)),
                      num(k.predicted_page_s), num(k.predicted_batch_s), measured, regime, ratio3(ratio),
                      num(k.own_time_s)});
  }
  s.tables.push_back(std::move(t));
  return s;
}

Section psi_section(const std::vector<RunPrediction>& runs) {
  Section s{.title = "4. PSI against the time spent over normal latency"};
  s.paragraphs.push_back(
      "Normal latency = the median of the run's ops whose high counter did not rise. Time over "
      "normal = the sum over all ops of max(0, latency - normal). PSI = memory.pressure some total "
      "at the last sample. PSI also counts the op in flight when the run stopped (1c), so its time "
      "over normal is added (marked *).");
  Table t{.head = {"run", "config", "normal op (ms)", "time over normal (s)", "of it, op in flight (s)",
                   "PSI memory some (s)", "ratio"}};
  for (const auto& r : runs) {
    if (!r.psi) continue;
    std::string mark = r.psi->in_flight_s ? "*" : "";
    t.rows.push_back({r.name, r.config, num(r.psi->normal_ms), num(r.psi->excess_s) + mark, num(r.psi->in_flight_s),
                      num(r.psi->psi_some_s), ratio3(r.psi->ratio) + mark});
  }
  s.tables.push_back(std::move(t));
  return s;
}

Section growth_section(const std::vector<RunPrediction>& runs) {
  Section s{.title = "5. Growth at the end of the run"};
  s.paragraphs.push_back(
      "Measured: the rise of memory.stat anon over the last 60 s of samples (or the last half of a "
      "shorter run); memory.current's only for page cache runs, since it also counts the per-CPU "
      "charge stock. Model: processes x bytes per sleep / the formula's sleep at the final usage, "
      "for one sleep per page and one per 64-page batch.");
  std::vector<int> procs;
  for (const auto& r : runs)
    if (r.growth && std::find(procs.begin(), procs.end(), r.growth->procs) == procs.end())
      procs.push_back(r.growth->procs);
  std::sort(procs.begin(), procs.end());
  for (int n : procs) {
    Table t{.caption = fmt::format("{} process{}", n, n == 1 ? "" : "es"),
            .head = {"run", "config", "window (s)", "memory.current at end", "measured (KiB/s)",
                     "model, 1 page per sleep (KiB/s)", "model, 64 pages per sleep (KiB/s)"}};
    for (const auto& r : runs) {
      if (!r.growth || r.growth->procs != n) continue;
      const auto& g = *r.growth;
      t.rows.push_back({r.name, r.config, num(g.window_s), mib(g.end_bytes), num(g.measured_kib_s),
                        num(g.model_page_kib_s), num(g.model_batch_kib_s)});
    }
    s.tables.push_back(std::move(t));
  }
  return s;
}

// Only when a run has memory.swap.high: a batch without reads as before.
std::optional<Section> swap_high_section(const std::vector<RunPrediction>& runs) {
  if (std::none_of(runs.begin(), runs.end(), [](const RunPrediction& r) { return r.swap_high.has_value(); }))
    return std::nullopt;
  Section s{.title = "7. memory.swap.high: each sleep against the formula"};
  s.paragraphs.push_back(
      "Single-process runs with memory.swap.high and swap counters in ops.jsonl. Sleeps per op = the rise of "
      "memory.swap.events high during the op / 17: swap_find_max_overage() raises it once per reclaim pass while "
      "memory.swap.current is over memory.swap.high, and mem_cgroup_handle_over_high() sleeps after 17 passes that "
      "freed nothing (mm/memcontrol.c, 6.12); rises of 17k + 1 count as k sleeps, other rises are skipped. The "
      "formula is the kernel's penalty for the op's pages shared out over its sleeps (a batch for one sleep, one page "
      "each for one sleep per page: at memory.max the charge falls back to one fault's pages) with the memory term (memory.current, as in section 1, "
      "against memory.high, none without it) and the swap term (memory.swap.current before the op against "
      "memory.swap.high) added, shifted by memory.high.throttle and clamped to 2 x HZ. Ratios as in section 1; "
      "swap over = (memory.swap.current - memory.swap.high) / memory.swap.high, swap term = its part of the summed "
      "penalty, both the median over the compared ops.");
  Table t{.head = {"run", "config", "HZ", "memory.swap.high", "ops with a rise", "skipped (not x17)", "of them 17k+1",
                   "formula: no sleep", "compared", "median ratio", "within 30%", "median ratio + half step",
                   "late per sleep (ms)", "swap over", "swap term"}};
  for (const auto& r : runs) {
    if (!r.swap_high) continue;
    const auto& c = r.swap_high->sleeps;
    t.rows.push_back({r.name, r.config, std::to_string(r.hz), mib(static_cast<double>(r.swap_high->swap_high_bytes)),
                      count(c.ops_with_rise), count(c.skipped_not_multiple), count(c.skipped_one_over),
                      count(c.formula_no_sleep), count(c.compared), ratio3(c.median_ratio), percent(c.within_30),
                      ratio3(c.median_ratio_wheel), num(c.median_late_ms), percent(r.swap_high->median_swap_over),
                      percent(r.swap_high->median_swap_share)});
  }
  s.tables.push_back(std::move(t));
  return s;
}

}  // namespace

std::vector<Section> predict_sections(const std::vector<RunPrediction>& runs) {
  std::vector<Section> out = {sleeps_section(runs), bins_section(runs), phases_section(runs),
                              kill_section(runs), psi_section(runs), growth_section(runs)};
  if (auto swap = swap_high_section(runs)) out.push_back(std::move(*swap));
  std::vector<std::string> skipped;
  for (const auto& r : runs)
    if (!r.skipped.empty()) skipped.push_back(fmt::format("{} ({})", r.name, r.skipped));
  if (!skipped.empty()) {
    std::string text = "Runs with no prediction: ";
    for (size_t i = 0; i < skipped.size(); ++i) text += (i ? ", " : "") + skipped[i];
    out.front().paragraphs.push_back(text + ".");
  }
  return out;
}

}  // namespace cgmem::report
