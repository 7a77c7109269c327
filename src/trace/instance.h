// A tracefs instance of cgmem's own: TRACEFS/instances/cgmem-PID, a trace
// buffer with its own events, filters and clock, so a traced run neither
// sees nor changes the system's tracing (or another tracer's instance).
// cgmem removes only the instance it created: one that exists already is
// refused, never reused or removed.
#pragma once

#include <string>
#include <string_view>

#include "common/error.h"

namespace cgmem::trace {

inline constexpr char kTracefs[] = "/sys/kernel/tracing";

class Instance {
 public:
  static Result<Instance> create(const std::string& tracefs, const std::string& name);
  Instance(Instance&& other) noexcept;
  Instance& operator=(Instance&&) = delete;
  ~Instance() { remove(); }

  const std::string& path() const { return path_; }
  std::string file(std::string_view rel) const { return path_ + "/" + std::string(rel); }
  // Writes VALUE to a control file of the instance ("trace_clock",
  // "events/memcg/memcg_stock_drain/filter").
  Result<void> write(std::string_view rel, std::string_view value) const;
  // A control file's text (a format, a CPU's stats), bounded.
  Result<std::string> read(std::string_view rel) const;
  // Turns every event of the instance off, then removes it (tracefs frees
  // its buffers). Its files must be closed first. Idempotent.
  Result<void> remove();

 private:
  explicit Instance(std::string path) : path_(std::move(path)) {}
  std::string path_;
  bool removed_ = false;
};

}  // namespace cgmem::trace
