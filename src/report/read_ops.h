// ops.jsonl into memory. On a million-op run this scan is most of the
// report's time, so a large file is cut at line ends into one piece per core
// and the pieces are scanned at once, and kept as pieces (op_list.h).
#pragma once

#include <string_view>

#include "report/op_list.h"
#include "report/run.h"

namespace cgmem::report {

inline constexpr size_t kMinPieceBytes = 4 << 20;  // a smaller piece costs more than its thread saves

// Appends the ops of `text` (a whole ops.jsonl) to `ops` in file order and
// returns the line counts, exactly as one sequential for_each_line would.
// `threads` 0 means one per core (at most 4); no piece is cut smaller than
// `min_piece_bytes`.
LineCounts scan_ops(std::string_view text, OpList& ops, unsigned threads = 0,
                    size_t min_piece_bytes = kMinPieceBytes);

}  // namespace cgmem::report
