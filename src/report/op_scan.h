// An allocation-free scanner for one line of ops.jsonl.
//
// A line looks like (docs/run-format.md):
//   {"op":412,"phase":"churn","pid":311,"cpu":0,"t_ns":91237733821,
//    "lat_ns":191800211,"held_bytes":243269632,"current_before":250875904,
//    "current_after":250875904,"high_before":10438,"high_after":10455,
//    "max_before":0,"max_after":0}
// and, where memory.swap.current and memory.swap.events exist, before the
// closing brace: "swap_before":...,"swap_after":...,"swap_high_before":...,
// "swap_high_after":...
//
// The general path walks the object once, matches the fixed keys by length and
// bytes, reads numbers with std::from_chars and skips any other value
// (strings with escapes, nested objects and arrays). It never allocates and
// never reads past `line`. Lines in the lab's exact shape take a fast path
// of fixed-length compares (scan_lab_op_line); bench/report_vs_python.sh
// measures the whole report.
#pragma once

#include <string_view>

#include "report/run.h"

namespace cgmem::report {

// Fills `op` from one line (without its newline). False when the line is not
// a JSON object, lacks "op", "t_ns" or "lat_ns", has a negative lat_ns, a
// known key holds the wrong type or a number is out of range; `op` is then
// unspecified. Unknown keys are skipped; missing keys
// leave their field as it was.
bool scan_op_line(std::string_view line, Op& op);
// The same, with the swap counters into `swap`; `has_swap` says whether the
// line held any of them (the others stay as they were).
bool scan_op_line(std::string_view line, Op& op, OpSwap& swap, bool& has_swap);

// The fast path scan_op_line tries first: true only for a line in the lab's
// exact shape (lab/op_line.h: compact, every key in its order). A test ties
// the two, so the lab's lines keep taking it.
bool scan_lab_op_line(std::string_view line, Op& op);
bool scan_lab_op_line(std::string_view line, Op& op, OpSwap& swap, bool& has_swap);

}  // namespace cgmem::report
