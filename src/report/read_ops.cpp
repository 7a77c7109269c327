#include "report/read_ops.h"

#include <algorithm>
#include <cstring>
#include <thread>

#include "report/jsonl.h"
#include "report/op_scan.h"

namespace cgmem::report {

namespace {

constexpr size_t kBytesPerOpLine = 200;  // the lab writes about 215
constexpr unsigned kMaxThreads = 4;

// The swap counters go beside the ops from the first line that has them
// (the ops before it get zeros); a piece without any keeps none.
LineCounts scan_piece(std::string_view text, OpList::Piece& ops, OpList::SwapPiece& swaps) {
  ops.reserve(text.size() / kBytesPerOpLine + 16);
  return for_each_line(text, [&](std::string_view line) {
    Op op;
    OpSwap swap;
    bool has_swap = false;
    if (!scan_op_line(line, op, swap, has_swap)) return false;
    ops.push_back(op);
    if (has_swap && swaps.empty()) swaps.reserve(ops.capacity()), swaps.resize(ops.size() - 1);
    if (!swaps.empty() || has_swap) swaps.push_back(swap);
    return true;
  });
}

// `text` cut into about `n` pieces, each ending just after a newline (the
// last one ends where the text does, newline or not).
std::vector<std::string_view> cut_at_lines(std::string_view text, size_t n) {
  std::vector<std::string_view> pieces;
  const char* p = text.data();
  const char* end = p + text.size();
  for (size_t i = 1; i < n && p < end; ++i) {
    const char* aim = text.data() + text.size() * i / n;
    if (aim <= p) continue;
    auto* nl = static_cast<const char*>(memchr(aim, '\n', static_cast<size_t>(end - aim)));
    if (!nl) break;
    pieces.emplace_back(p, static_cast<size_t>(nl + 1 - p));
    p = nl + 1;
  }
  if (p < end || pieces.empty()) pieces.emplace_back(p, static_cast<size_t>(end - p));
  return pieces;
}

}  // namespace

LineCounts scan_ops(std::string_view text, OpList& ops, unsigned threads, size_t min_piece_bytes) {
  if (threads == 0) threads = std::clamp(std::thread::hardware_concurrency(), 1u, kMaxThreads);
  size_t n = std::clamp<size_t>(text.size() / std::max<size_t>(min_piece_bytes, 1), 1, threads);
  auto pieces = cut_at_lines(text, n);
  std::vector<OpList::Piece> scanned(pieces.size());
  std::vector<OpList::SwapPiece> swaps(pieces.size());
  std::vector<LineCounts> counts(pieces.size());
  {
    std::vector<std::jthread> workers;
    for (size_t i = 1; i < pieces.size(); ++i)
      workers.emplace_back([&, i] { counts[i] = scan_piece(pieces[i], scanned[i], swaps[i]); });
    counts[0] = scan_piece(pieces[0], scanned[0], swaps[0]);
  }
  LineCounts total;
  for (size_t i = 0; i < pieces.size(); ++i) {
    ops.append(std::move(scanned[i]), std::move(swaps[i]));
    total.read += counts[i].read;
    total.bad += counts[i].bad;
    total.truncated_last += counts[i].truncated_last;  // only the last piece can end mid-line
  }
  return total;
}

}  // namespace cgmem::report
