#include "report/trace_procs.h"

#include <map>

namespace cgmem::report {

std::vector<ProcessRow> per_process(const Run& run) {
  std::map<int32_t, ProcessRow> rows;
  std::map<int32_t, int64_t> first_sleep;  // pid -> its first sleeping high_penalty (ns since the start)
  for (const auto& e : run.trace->events) {
    if (const auto* p = std::get_if<HighPenalty>(&e.what)) {
      ProcessRow& row = rows[e.pid];
      row.pid = e.pid;
      row.comm = p->comm;
      row.sleeps += p->sleeps;
      if (p->sleeps) first_sleep.try_emplace(e.pid, e.t_ns);
    } else if (const auto* s = std::get_if<HighSleep>(&e.what)) {
      if (auto it = rows.find(e.pid); it != rows.end()) it->second.asleep_s += static_cast<double>(s->slept_ns) / 1e9;
    }
  }
  // The pages of its throttled window: the ops that returned after its
  // first sleep began (the one in flight then included), not those that
  // grew to memory.high without a sleep.
  for (const auto& op : run.ops) {
    auto it = rows.find(op.pid);
    auto first = first_sleep.find(op.pid);
    if (it == rows.end() || first == first_sleep.end()) continue;
    if (op.end_ns() - run.meta.started_mono_ns < first->second) continue;
    ++it->second.ops;
    it->second.pages += op_pages(op, run.meta.chunk_bytes, run.meta.page_size);
  }
  std::vector<ProcessRow> out;
  for (auto& [pid, row] : rows) {
    if (row.sleeps && row.ops) row.pages_per_sleep = static_cast<double>(row.pages) / static_cast<double>(row.sleeps);
    out.push_back(std::move(row));
  }
  return out;
}

}  // namespace cgmem::report
