#include "lab/op_line.h"

namespace cgmem::lab {

std::string_view phase_name(Phase phase) {
  switch (phase) {
    case Phase::grow: return "grow";
    case Phase::churn: return "churn";
    case Phase::own_high: return "own_high";
  }
  return "grow";
}

void format_op_line(const OpRecord& r, JsonLine& line) {
  line.clear();
  line.open()
      .field("op", r.op)
      .field_str("phase", phase_name(r.phase))
      .field_i("pid", r.pid)
      .field_i("cpu", r.cpu)
      .field("t_ns", r.t_ns)
      .field("lat_ns", r.lat_ns)
      .field("held_bytes", r.held_bytes)
      .field("current_before", r.before.current)
      .field("current_after", r.after.current)
      .field("high_before", r.before.high)
      .field("high_after", r.after.high)
      .field("max_before", r.before.max)
      .field("max_after", r.after.max)
      .close()
      .newline();
}

}  // namespace cgmem::lab
