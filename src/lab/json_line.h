// JsonLine: builds one JSON line in storage the caller owns, with no heap
// allocation, for the hot loops (the workload's op line, the sampler's tick).
// Numbers go through std::to_chars. When the storage is too small the line
// is marked overflowed and further appends are dropped: the caller checks
// ok() and reports it rather than writing half a line.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace cgmem::lab {

class JsonLine {
 public:
  explicit JsonLine(std::span<char> storage) : buf_(storage) {}

  void clear() { len_ = 0, overflow_ = false, need_comma_ = false; }
  bool ok() const { return !overflow_; }
  std::string_view view() const { return {buf_.data(), len_}; }

  // Structure. key() writes the separating comma when one is due.
  JsonLine& open() { raw("{"), need_comma_ = false; return *this; }
  JsonLine& close() { raw("}"), need_comma_ = true; return *this; }
  JsonLine& open_array() { raw("["), need_comma_ = false; return *this; }
  JsonLine& close_array() { raw("]"), need_comma_ = true; return *this; }
  JsonLine& key(std::string_view name);
  // Before an element of an array.
  JsonLine& element() { if (need_comma_) raw(","); need_comma_ = false; return *this; }
  JsonLine& newline() { raw("\n"); return *this; }

  // Values.
  JsonLine& u64(uint64_t value);
  JsonLine& i64(int64_t value);
  // A finite double in its shortest round-trip form ("97.12").
  JsonLine& f64(double value);
  JsonLine& null() { raw("null"), need_comma_ = true; return *this; }
  // A string value, escaped ('"', '\\' and control characters).
  JsonLine& str(std::string_view text);
  // A JSON number copied as the kernel printed it ("97.12"); the caller has
  // checked that it is one.

  // key + value in one call.
  JsonLine& field(std::string_view name, uint64_t value) { return key(name).u64(value); }
  JsonLine& field_i(std::string_view name, int64_t value) { return key(name).i64(value); }
  JsonLine& field_str(std::string_view name, std::string_view value) { return key(name).str(value); }

  void raw(std::string_view text);

 private:
  std::span<char> buf_;
  size_t len_ = 0;
  bool overflow_ = false;
  bool need_comma_ = false;
};

}  // namespace cgmem::lab
