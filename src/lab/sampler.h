// The sampler: one line of samples.jsonl per tick (docs/run-format.md).
//
// Why it is built this way. The study's sampler ran on the workload's CPU and
// parsed the files into Python objects every 100 ms, charging memory to its
// own cgroup on that CPU. A charge from a different cgroup empties the CPU's
// per-CPU charge stock (__refill_stock drains it), so the throttled workload
// found the stock empty on almost every page and paid one sleep per 4 KiB
// page instead of one per 64-page batch: up to 64 times the cost. What we
// measured in the VM (docs/lab.md): reading through file descriptors opened
// once charges nothing, because seq_file keeps its buffer for the life of
// the open file; what drains the stock is allocating memory on that CPU.
//
// So this sampler opens every file once (the cgroup's control files at
// open(), each process's /proc files when the process first appears), reads
// with pread into fixed buffers it owns, transcodes the kernel's text into
// JSON in a fixed line buffer, and writes the line with one write(2). A tick
// allocates nothing on the heap. The run driver also places it: on another
// CPU than the workload when there is one (run_driver.h).
#pragma once

#include <sys/types.h>

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cgroup/flat_keyed.h"
#include "cgroup/reader.h"
#include "common/error.h"
#include "common/fd.h"
#include "lab/json_line.h"

namespace cgmem::lab {

// What one tick saw that the driver needs (progress line, outcome).
struct TickSummary {
  bool read_current = false;
  uint64_t current = 0;
  cgroup::EventCounts events;  // memory.events
  unsigned procs = 0;
  unsigned read_errors = 0;  // files this tick could not read (named in the line)
};

class Sampler {
 public:
  static constexpr unsigned kMaxProcs = 256;
  static constexpr size_t kMaxFiles = 12;  // the control files a sample reads

  // Opens the control files of the cgroup directory `dir` that exist (a file
  // missing here, say io.stat without the io controller, is left out of
  // every line); `proc_root` is "/proc" (a fixture tree in tests).
  static Result<std::unique_ptr<Sampler>> open(const std::string& dir,
                                               const std::string& proc_root = "/proc");

  // Reads everything once and writes one line to out_fd. t_ns is the
  // CLOCK_MONOTONIC time of the tick.
  Result<TickSummary> tick(uint64_t t_ns, int out_fd);

  // The last line written (for tests and benchmarks).
  std::string_view last_line() const { return line_.view(); }

  Sampler(const Sampler&) = delete;
  Sampler& operator=(const Sampler&) = delete;

 private:
  enum class Kind { counter, flat, pressure, nested };
  struct File {
    const char* name;      // control file
    const char* json_key;  // key in the line
    Kind kind;
    std::optional<cgroup::FileReader> reader;
  };
  struct Proc {
    pid_t pid = 0;
    Fd stat_fd;
    Fd wchan_fd;
    bool seen = false;  // listed in cgroup.procs this tick
  };

  Sampler() : line_(line_storage_) {}
  // 0, or the errno of a file that could not be read or parsed.
  int emit_file(File& file, TickSummary& summary);
  void update_procs(std::string_view pid_list);
  void emit_procs();
  void emit_proc(const Proc& proc);

  std::string dir_;
  std::string proc_root_;
  std::vector<File> files_;
  std::optional<cgroup::FileReader> procs_reader_;
  std::array<Proc, kMaxProcs> procs_{};
  unsigned nprocs_ = 0;
  std::array<char, 16384> read_buffer_{};
  std::array<char, 65536> line_storage_{};
  JsonLine line_;
};

}  // namespace cgmem::lab
