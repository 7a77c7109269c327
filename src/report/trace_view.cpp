// The trace section's Markdown/HTML document (trace_view.h).
#include "report/trace_view.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/text.h"

namespace cgmem::report {

namespace {

std::string ms_of_ns(std::optional<double> ns) { return ns ? num(*ns / 1e6) : "-"; }
std::string share1(std::optional<double> v) { return v ? fmt::format("{:.1f}%", *v * 100) : "-"; }
std::string lost_text(const TraceReport& t) { return t.lost ? std::to_string(*t.lost) : "not recorded"; }
std::string run_label(const TraceReport& t) { return fmt::format("{} ({})", visible(t.name), visible(t.config)); }

// What a cause means, for the sentence under its table.
std::string cause_meaning(const AttributionRow& r) {
  std::string where = r.cgroup ? " (" + visible(*r.cgroup) + ")" : "";
  if (r.cause == "own_process") return "the program's own charges and frees (its processes' refills)";
  if (r.cause == "neighbour") return "a neighbour's charges on the CPU" + where + ", taking the stock's slot";
  if (r.cause == "cgmem") return "cgmem's own sampler or tools charging on the CPU";
  if (r.cause == "kernel_worker") return "a kernel thread's charges on the CPU (" + visible(r.comm) + ")";
  if (r.cause == "reclaim") return "reclaim at memory.max" + where + " draining every CPU's stock";
  if (r.cause == "limit_write") return "a write to memory.high or memory.max" + where + " draining every CPU's stock";
  if (r.cause == "cgroup_removal") return "a cgroup's removal" + where + " draining every CPU's stock";
  if (r.cause == "drain_all") return "a drain of every CPU's stock whose caller was not recorded";
  if (r.cause == "hotplug") return "a CPU going offline";
  return "another cgroup's charge on the CPU" + where;
}

// Lost events, lines not read, the writer's errors and missing parts: said
// for each run, never dropped.
std::vector<std::string> trace_caveats(const TraceReport& t) {
  std::vector<std::string> out;
  if (t.lossy())
    out.push_back(fmt::format(
        "{} events lost{}: every figure of this run may miss some, and a lost drain makes an "
        "extra sleep look like a batch's own",
        *t.lost, t.lost_by_cpu.empty() ? "" : fmt::format(" (by CPU: {})", fmt::join(t.lost_by_cpu, ", "))));
  else if (!t.lost)
    out.push_back("the lost events were not recorded");
  auto lines = [](uint64_t n) { return fmt::format("{} line{}", n, n == 1 ? "" : "s"); };
  if (t.bad_lines) out.push_back(fmt::format("{} of trace.jsonl not valid, skipped", lines(t.bad_lines)));
  if (t.truncated_lines) out.push_back("a truncated last line skipped");
  if (t.unknown_events)
    out.push_back(fmt::format("{} of events this cgmem does not know, skipped", lines(t.unknown_events)));
  for (const auto& e : t.errors) out.push_back("the trace writer said: " + visible(e));
  for (const auto& p : t.problems) out.push_back(visible(p));
  return out;
}

std::string summary_sentence(const TraceReport& t) {
  const Attribution& a = *t.attribution;
  std::string text =
      fmt::format("{}: {} sleeps, {} extra ({}), {} the batch's own.", run_label(t), a.sleeps, a.extra_sleeps,
                  percent(static_cast<double>(a.extra_sleeps) / static_cast<double>(a.sleeps)), a.batch_sleeps);
  if (!a.rows.empty())
    text += fmt::format(" {} of the extra sleeps followed {}.", percent(a.rows.front().share),
                        cause_meaning(a.rows.front()));
  if (t.own_cpu)
    text +=
        " The workload had its CPU to itself (no neighbour, the sampler on another CPU): this is what empties "
        "the precharge on a CPU of its own, the study's open question.";
  return text;
}

Section attribution_section(const std::vector<TraceReport>& traces) {
  Section s{.title = "Trace: what emptied the charge stock before each extra sleep"};
  s.paragraphs.push_back(
      "Runs recorded with `cgmem run --trace` (trace.jsonl: the kernel's charge-stock, throttle and scheduler "
      "events). A throttle sleep is extra when the run's cgroup's charge stock was drained between the same task's "
      "previous batch charge and the one that led to this sleep (each charge comes just before its throttle "
      "decision's reclaim): the stock that would have served the pages between was gone, so the task charged a "
      "new batch after one page and slept again. Otherwise it is the batch's own sleep. Each extra sleep goes to "
      "the last drain before it, by what caused that drain.");
  for (const auto& t : traces) {
    auto notes = trace_caveats(t);
    if (!notes.empty()) s.paragraphs.push_back(fmt::format("{}: {}.", run_label(t), fmt::join(notes, "; ")));
    if (!t.attribution) continue;
    if (t.attribution->sleeps == 0) {
      s.paragraphs.push_back(fmt::format("{}: no throttle sleep in the trace.", run_label(t)));
      continue;
    }
    s.paragraphs.push_back(summary_sentence(t));
    if (t.attribution->rows.empty()) continue;  // every sleep the batch's own
    Table table{.caption = fmt::format("{}: extra sleeps by cause", run_label(t)),
                .head = {"cause", "cgroup", "comm", "extra sleeps", "share", "lost events"}};
    for (const auto& r : t.attribution->rows)
      table.rows.push_back({r.cause, r.cgroup ? visible(*r.cgroup) : "-", visible(r.comm), std::to_string(r.sleeps),
                            percent(r.share), lost_text(t)});
    s.tables.push_back(std::move(table));
  }
  return s;
}

std::string split_sentence(const TraceReport& t) {
  const SleepSplit& p = *t.split;
  std::string text = fmt::format(
      "{}: time per sleep {} times the formula at the median ({} over the sums; the study: {:.2f} to {:.2f}); of "
      "the extra, the timer wheel's rounding is {} (the study: about half).",
      run_label(t), num_fixed(p.median_ratio, 3), num_fixed(p.ratio_of_sums, 3), kStudyRatioLo, kStudyRatioHi,
      percent(p.timer_share_of_extra));
  if (t.emulated && p.driver_wakeup_median_ns)
    text += fmt::format(
        " Software emulation: cgmem's driver's median wake-up takes {} ms ({} wake-up{}) against the throttled "
        "task's {} ms, so about {} of the task's wake-up is what any wake-up costs on this emulated machine.",
        ms_of_ns(p.driver_wakeup_median_ns), p.driver_wakeups, p.driver_wakeups == 1 ? "" : "s",
        ms_of_ns(p.wakeup.median_ns), percent(p.emulator_share_of_wakeup));
  std::vector<std::string> left;
  if (p.ended_early) left.push_back(fmt::format("{} ended early by a fatal signal", p.ended_early));
  if (p.without_sleep_line) left.push_back(fmt::format("{} without their high_sleep line", p.without_sleep_line));
  if (p.without_wakeup) left.push_back(fmt::format("{} without their waking or switch", p.without_wakeup));
  if (!left.empty()) text += fmt::format(" Left out: {}.", fmt::join(left, ", "));
  if (t.lossy()) text += fmt::format(" {} events lost.", *t.lost);
  return text;
}

Section split_section(const std::vector<TraceReport>& traces) {
  Section s{.title = "Trace: where a sleep's time goes"};
  s.paragraphs.push_back(
      "Each sleep with its high_sleep line, split into parts that add up to its time: reclaim before the decision "
      "(reclaim_ns), the formula's penalty (planned_ns), the timer wheel's rounding (the task's first waking after "
      "the sleep started, minus the start and the penalty; slightly negative when a sleep started within a jiffy "
      "ends on the tick), the wake-up latency (from that waking until the task gets the CPU) and the rest (until "
      "the sleep's end). Medians in ms, and each part's sum as a share of the penalties' sum. Time per sleep = "
      "(reclaim + slept) / penalty, beside the study's 1.06 to 1.10 (op latency over sleeps x formula).");
  bool emulated = false;
  for (const auto& t : traces) emulated = emulated || (t.emulated && t.split && t.split->driver_wakeup_median_ns);
  Table table{.head = {"run", "config", "sleeps split", "penalty (ms)", "timer (ms)", "timer share", "wake-up (ms)",
                       "wake-up share", "rest (ms)", "rest share", "reclaim (ms)", "reclaim share",
                       "time per sleep / formula"}};
  if (emulated) table.head.push_back("driver wake-up (ms)");
  table.head.push_back("lost events");
  for (const auto& t : traces) {
    if (!t.split || t.split->sleeps == 0) continue;
    const SleepSplit& p = *t.split;
    s.paragraphs.push_back(split_sentence(t));
    std::vector<std::string> row = {visible(t.name),
                                    visible(t.config),
                                    std::to_string(p.sleeps),
                                    ms_of_ns(p.penalty.median_ns),
                                    ms_of_ns(p.timer.median_ns),
                                    share1(p.timer.of_penalty),
                                    ms_of_ns(p.wakeup.median_ns),
                                    share1(p.wakeup.of_penalty),
                                    ms_of_ns(p.rest.median_ns),
                                    share1(p.rest.of_penalty),
                                    ms_of_ns(p.reclaim.median_ns),
                                    share1(p.reclaim.of_penalty),
                                    num_fixed(p.median_ratio, 3)};
    if (emulated) row.push_back(ms_of_ns(p.driver_wakeup_median_ns));
    row.push_back(lost_text(t));
    table.rows.push_back(std::move(row));
  }
  if (!table.rows.empty()) s.tables.push_back(std::move(table));
  return s;
}

Section process_section(const std::vector<TraceReport>& traces) {
  Section s{.title = "Trace: the throttle per process"};
  s.paragraphs.push_back(
      "One row per task that had a throttle decision: its sleeps, the pages it wrote (its ops in ops.jsonl) per "
      "sleep, 64 for one sleep per 64-page batch and 1 for one per page, and its time asleep.");
  Table table{.head = {"run", "config", "pid", "comm", "sleeps", "pages per sleep", "asleep (s)", "lost events"}};
  for (const auto& t : traces)
    for (const auto& r : t.per_process)
      table.rows.push_back({visible(t.name), visible(t.config), std::to_string(r.pid), visible(r.comm),
                            std::to_string(r.sleeps), num(r.pages_per_sleep), num(r.asleep_s), lost_text(t)});
  if (!table.rows.empty()) s.tables.push_back(std::move(table));
  return s;
}

}  // namespace

std::vector<Section> trace_sections(const std::vector<TraceReport>& traces) {
  if (traces.empty()) return {};
  return {attribution_section(traces), split_section(traces), process_section(traces)};
}

}  // namespace cgmem::report
