#include "exporter/kills.h"

namespace cgmem::exporter {

void KillLog::observe(const watch::Row& row, const std::string& labels, uint64_t now_ns) {
  auto found = records_.find(row.id);
  if (row.state == watch::State::gone) {
    if (found != records_.end() && found->second.gone_ns == 0) found->second.gone_ns = now_ns;
    return;
  }
  uint64_t kills = row.sample.local.oom_kill;
  if (kills == 0) return;
  if (found == records_.end()) {
    records_.emplace(row.id, Record{.labels = labels, .kills = kills});
    return;
  }
  // A counter never goes back; the max also keeps an event read's count
  // when a later read of the same cgroup came before the kill was counted.
  if (kills > found->second.kills) found->second.kills = kills;
}

void KillLog::expire(uint64_t now_ns, uint64_t retention_ns) {
  std::erase_if(records_, [&](const auto& entry) {
    const Record& r = entry.second;
    return r.gone_ns != 0 && now_ns - r.gone_ns > retention_ns;
  });
}

void KillLog::items(std::vector<KillItem>& out) const {
  out.clear();
  for (const auto& [id, r] : records_) out.push_back({.labels = &r.labels, .kills = r.kills});
}

}  // namespace cgmem::exporter
