// OOM kills kept beyond their cgroup. A container that is OOM-killed is
// usually torn down at once, its cgroup removed with its memory.events,
// often before the next scrape: a counter read at scrape time would never
// show the kill. The scanner catches it when it happens (inotify on
// memory.events, watch/scanner.h); this log keeps the victim's count with
// its labels for a retention time after the cgroup is gone, so the series
// `cgmem_oom_kills_seen_total{cgroup=...}` is there for the next scrapes and
// alert rules see it rise. (The parent's hierarchical
// cgmem_memory_events_oom_kill_total keeps the count too, without the
// victim's name.)
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "exporter/exposition.h"
#include "watch/scanner.h"

namespace cgmem::exporter {

class KillLog {
 public:
  // Takes a row of a scan or of an event. A live cgroup with kills in its
  // memory.events.local (oom_kill) gets or updates its record; a gone one
  // starts its retention.
  void observe(const watch::Row& row, const std::string& labels, uint64_t now_ns);

  // Forgets cgroups gone for longer than retention_ns.
  void expire(uint64_t now_ns, uint64_t retention_ns);

  // The records, for rendering (pointers valid until the next observe or expire).
  void items(std::vector<KillItem>& out) const;
  size_t size() const { return records_.size(); }

 private:
  struct Record {
    std::string labels;
    uint64_t kills = 0;
    uint64_t gone_ns = 0;  // 0: the cgroup is still there
  };
  std::unordered_map<uint64_t, Record> records_;  // by cgroup id
};

}  // namespace cgmem::exporter
