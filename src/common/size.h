// Sizes as people write them and as the kernel writes them.
//
// Accepted: plain bytes ("241590272"), a suffix K/M/G/T (base 1024, so
// "256M" = 268435456), the same with "i" or "iB" ("256MiB", "256Mi"), a
// trailing "B" on plain bytes ("4096B"), decimals ("230.4MiB", rounded down
// to a whole byte), and where the caller allows it "max" and "N%" of a base.
// Rejected with a message that quotes the input: empty text, signs,
// garbage, "KB"/"MB" (ambiguous: 1000 or 1024?), and anything above 2^64-1.
#pragma once

#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/error.h"

namespace cgmem {

// A limit file's value: a byte count or "max". "max" is its own state, never
// a sentinel number (the kernel prints it as "max\n").
class Limit {
 public:
  static Limit max() { return Limit(); }
  static Limit of(uint64_t bytes) { return Limit(bytes); }

  bool is_max() const { return !bytes_; }
  // Only meaningful when !is_max().
  uint64_t bytes() const { return bytes_.value_or(UINT64_MAX); }
  std::optional<uint64_t> value() const { return bytes_; }
  auto operator<=>(const Limit&) const = default;

 private:
  Limit() = default;
  explicit Limit(uint64_t b) : bytes_(b) {}
  std::optional<uint64_t> bytes_;
};

struct SizeRules {
  bool allow_max = false;                   // "max" (and "infinity" is not: that is systemd's word)
  std::optional<uint64_t> percent_of;       // set to allow "N%" of this many bytes
};

// Parses a byte count. "max" is an error here; use parse_limit for limits.
Result<uint64_t> parse_bytes(std::string_view text);

// Parses a byte count, "max" or a percentage, as the rules allow.
Result<Limit> parse_limit(std::string_view text, SizeRules rules = {.allow_max = true});

// "230.4MiB", "256MiB", "4KiB", "512B": exact when it can be, else to the
// nearest tenth, in the largest unit that gives at least 1.
std::string format_bytes(uint64_t bytes);

// format_bytes, or "max".
std::string format_limit(const Limit& limit);

}  // namespace cgmem
