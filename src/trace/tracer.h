// `cgmem run --trace`: the run's trace session. It creates a tracefs
// instance of its own (instance.h), enables the memcg events of cgmem's
// kernel (filtered in the kernel to the run's cgroup where they name one)
// and the scheduler's wake-up and switch, reads every CPU's ring buffer
// without blocking at each sampler tick, and appends the events that
// concern the run to trace.jsonl (docs/run-format.md): the scheduler's only
// for the run's tasks and cgmem's driver, since they are everyone's. At the
// end it reads the lost-event counts, disables everything and removes the
// instance, and returns what outcome.json's "trace" records.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "common/error.h"
#include "trace/instance.h"

namespace cgmem::trace {

// A cgroup the run made: its path and id (its directory's inode number, as
// cgroup::Cgroup recorded it at open), the id the kernel's events carry.
struct TracedCgroup {
  std::string path;
  uint64_t id = 0;
};

struct TraceSetup {
  std::string tracefs = kTracefs;
  std::string cgroup2_mount;                    // the run's cgroups are named relative to it
  TracedCgroup run_cgroup;                      // the run's cgroup
  std::vector<TracedCgroup> neighbour_cgroups;  // --neighbours
  pid_t driver_pid = 0;                        // cgmem run itself, the sampler
  int out_fd = -1;                             // trace.jsonl, appended
  std::string proc_root = "/proc";             // kallsyms, the driver's cgroup
  std::optional<unsigned> hz;                  // the kernel's, for the record
  unsigned buffer_kb = 4096;                   // per CPU
};

class Tracer {
 public:
  // Refuses (nothing created) on a kernel without cgmem's memcg events or
  // without tracefs, naming the kernel to boot or the mount to make.
  static Result<std::unique_ptr<Tracer>> start(const TraceSetup& setup);
  ~Tracer();

  // t_ns of every line is measured from here (the run's start).
  void set_origin(uint64_t mono_ns);
  // A task whose scheduler events are kept (the workload).
  void keep_pid(pid_t pid);
  // Reads what every CPU's buffer holds now and appends it.
  void poll();
  // A last poll, the lost counts, tracing off, the instance removed.
  // outcome.json's "trace". Once; later calls return the same.
  nlohmann::json stop();

  struct State;

 private:
  explicit Tracer(std::unique_ptr<State> state);
  std::unique_ptr<State> s_;
};

}  // namespace cgmem::trace
