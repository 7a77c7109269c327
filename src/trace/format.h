// The layout of one trace event as tracefs describes it in
// events/SYSTEM/NAME/format (and of a ring-buffer page, events/header_page):
// the event's id and each field's offset, size and sign. The reader takes
// every field it needs by name from here, never by a fixed offset, so a
// kernel that orders a struct differently is still read right.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.h"

namespace cgmem::trace {

struct Field {
  std::string name;  // "prev_pid", "comm" (an array's name without its [N])
  uint32_t offset = 0, size = 0;
  bool is_signed = false;
};

struct EventFormat {
  std::string name;          // "sched_switch"
  std::optional<uint32_t> id;  // "ID: 316"; header_page has none
  std::vector<Field> fields;

  const Field* field(std::string_view name) const;
};

// Parses a format file's text. An error names what is missing or malformed;
// a field line it cannot read is an error, never skipped.
Result<EventFormat> parse_format(std::string_view text);

// The value of an integer field (1, 2, 4 or 8 bytes, little-endian, sign
// extended when signed) in an event's data; nullopt when the field does not
// fit the data or has another size.
std::optional<int64_t> read_signed(const Field& field, std::span<const uint8_t> data);
std::optional<uint64_t> read_unsigned(const Field& field, std::span<const uint8_t> data);

// A fixed char array field (a comm): the bytes up to the first NUL.
std::optional<std::string_view> read_chars(const Field& field, std::span<const uint8_t> data);

}  // namespace cgmem::trace
