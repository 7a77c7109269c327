#include "lab/op_line.h"

namespace cgmem::lab {

void format_op_line(const OpRecord& r, JsonLine& line) {
  line.clear();
  namespace op_key = run_format::op_key;
  line.open()
      .field(op_key::kOp, r.op)
      .field_str(op_key::kPhase, run_format::to_string(r.phase))
      .field_i(op_key::kPid, r.pid)
      .field_i(op_key::kCpu, r.cpu)
      .field(op_key::kTNs, r.t_ns)
      .field(op_key::kLatNs, r.lat_ns)
      .field(op_key::kHeldBytes, r.held_bytes)
      .field(op_key::kCurrentBefore, r.before.current)
      .field(op_key::kCurrentAfter, r.after.current)
      .field(op_key::kHighBefore, r.before.high)
      .field(op_key::kHighAfter, r.after.high)
      .field(op_key::kMaxBefore, r.before.max)
      .field(op_key::kMaxAfter, r.after.max);
  if (r.before.has_swap && r.after.has_swap)
    line.field(op_key::kSwapBefore, r.before.swap)
        .field(op_key::kSwapAfter, r.after.swap)
        .field(op_key::kSwapHighBefore, r.before.swap_high)
        .field(op_key::kSwapHighAfter, r.after.swap_high);
  line.close().newline();
}

}  // namespace cgmem::lab
