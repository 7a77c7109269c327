// One page of a CPU's trace ring buffer, as a read of tracefs's
// per_cpu/cpuN/trace_pipe_raw returns it: a header (the page's first
// timestamp, and its commit: how many bytes of events follow, with flags
// for events the writer lost before it), then events, each a 32-bit header
// (type_len in the low 5 bits, a time delta in the high 27) and its data.
// type_len 1 to 28 is an event of type_len * 4 bytes; 0 an event whose
// length is the next word; 29 padding (0 delta: the page's end); 30 a time
// extend (a delta too long for 27 bits); 31 an absolute time stamp. The
// layout is the kernel's (kernel/trace/ring_buffer.c); the header's offsets
// come from events/header_page. Every length is checked against the page:
// a page that lies about one ends the page with an error, never a read
// past it.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "common/error.h"

namespace cgmem::trace {

struct PageLayout {
  uint32_t commit_offset = 8;  // header_page: the commit field
  uint32_t commit_size = 8;
  uint32_t data_offset = 16;   // where events start
  uint32_t data_size = 4080;   // the most bytes of events a page holds
};

struct RawEvent {
  uint64_t ts = 0;                  // the trace clock's ns
  std::span<const uint8_t> data;    // the event's record: common fields first
};

struct Page {
  std::vector<RawEvent> events;
  // The writer lost events before this page: how many, when the kernel
  // stored the count (else missed_unknown).
  uint64_t missed = 0;
  bool missed_unknown = false;
};

// Parses one page. An error says what was wrong; the events before it
// are lost with the page (the caller counts the page as unreadable).
Result<Page> parse_page(std::span<const uint8_t> bytes, const PageLayout& layout);

}  // namespace cgmem::trace
