#include "trace/ring_page.h"

#include <fmt/format.h>

namespace cgmem::trace {
namespace {

// The kernel's flags in the high bits of a read page's commit.
constexpr uint64_t kMissedEvents = uint64_t{1} << 31;
constexpr uint64_t kMissedStored = uint64_t{1} << 30;
constexpr uint64_t kCommitMask = (uint64_t{1} << 30) - 1;

constexpr uint32_t kTypePadding = 29, kTypeTimeExtend = 30, kTypeTimeStamp = 31;
// An absolute time stamp carries 59 bits; the top 5 come from the page's.
constexpr uint64_t kTimeStampMsb = uint64_t{0xf8} << 56;

uint64_t read_le(std::span<const uint8_t> bytes, size_t at, size_t size) {
  uint64_t value = 0;
  for (size_t i = 0; i < size; ++i) value |= uint64_t{bytes[at + i]} << (8 * i);
  return value;
}

}  // namespace

Result<Page> parse_page(std::span<const uint8_t> bytes, const PageLayout& layout) {
  if (layout.commit_size != 4 && layout.commit_size != 8)
    return fail(fmt::format("a trace page layout with a {}-byte commit", layout.commit_size));
  if (bytes.size() < layout.data_offset || layout.commit_offset + layout.commit_size > layout.data_offset ||
      layout.data_offset < 8)
    return fail(fmt::format("a trace page of {} bytes, shorter than its {}-byte header", bytes.size(),
                            layout.data_offset));
  Page page;
  uint64_t ts = read_le(bytes, 0, 8);
  uint64_t commit = read_le(bytes, layout.commit_offset, layout.commit_size);
  uint64_t length = commit & kCommitMask;
  size_t end = layout.data_offset + length;
  if (length > layout.data_size || end > bytes.size())
    return fail(fmt::format("a trace page whose commit says {} bytes of events, more than its {}", length,
                            std::min<uint64_t>(layout.data_size, bytes.size() - layout.data_offset)));
  if (commit & kMissedEvents) {
    if ((commit & kMissedStored) && end + 8 <= bytes.size())
      page.missed = read_le(bytes, end, 8);
    else
      page.missed_unknown = true;
  }
  size_t at = layout.data_offset;
  while (at + 4 <= end) {
    auto header = static_cast<uint32_t>(read_le(bytes, at, 4));
    uint32_t type_len = header & 0x1f;
    uint64_t delta = header >> 5;
    auto need = [&](size_t size) -> Result<void> {
      if (size > end - at)
        return fail(fmt::format("a trace event of {} bytes at byte {} of a page of {}", size, at, end));
      return {};
    };
    if (type_len == kTypePadding) {
      if (delta == 0) break;  // the rest of the page is empty
      if (auto ok = need(8); !ok) return std::unexpected(ok.error());
      uint64_t size = 4 + read_le(bytes, at + 4, 4);
      if (auto ok = need(size); !ok || size < 8) return fail(fmt::format("a trace padding of {} bytes", size));
      ts += delta;  // a discarded event keeps its time
      at += size;
    } else if (type_len == kTypeTimeExtend || type_len == kTypeTimeStamp) {
      if (auto ok = need(8); !ok) return std::unexpected(ok.error());
      uint64_t value = delta | (read_le(bytes, at + 4, 4) << 27);
      ts = type_len == kTypeTimeExtend ? ts + value : (ts & kTimeStampMsb) | value;
      at += 8;
    } else if (type_len == 0) {
      if (auto ok = need(8); !ok) return std::unexpected(ok.error());
      uint64_t size = read_le(bytes, at + 4, 4);  // the data and this word
      if (size < 4) return fail(fmt::format("a trace event of length {}", size));
      if (auto ok = need(4 + size); !ok) return std::unexpected(ok.error());
      ts += delta;
      page.events.push_back({.ts = ts, .data = bytes.subspan(at + 8, size - 4)});
      at += 4 + size;
    } else {
      // type_len 1 to 28: that many words of data
      uint64_t size = uint64_t{type_len} * 4;
      if (auto ok = need(4 + size); !ok) return std::unexpected(ok.error());
      ts += delta;
      page.events.push_back({.ts = ts, .data = bytes.subspan(at + 4, size)});
      at += 4 + size;
    }
  }
  return page;
}

}  // namespace cgmem::trace
