#include "report/op_scan.h"

#include <array>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <limits>

#include "run_format/run_format.h"

namespace cgmem::report {

namespace {

namespace op_key = run_format::op_key;

struct Cursor {
  const char* p;
  const char* end;

  void skip_ws() {
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')) ++p;
  }
  bool eat(char c) {
    skip_ws();
    if (p >= end || *p != c) return false;
    ++p;
    return true;
  }
};

// Reads a string body after its opening quote; `out` is the raw text
// between the quotes (escapes left as they are).
bool read_string(Cursor& c, std::string_view& out) {
  const char* start = c.p;
  while (c.p < c.end) {
    char ch = *c.p;
    if (ch == '\\') {
      if (c.end - c.p < 2) return false;
      c.p += 2;
      continue;
    }
    if (ch == '"') {
      out = std::string_view(start, static_cast<size_t>(c.p - start));
      ++c.p;
      return true;
    }
    ++c.p;
  }
  return false;
}

// Skips one JSON value of any kind. Nested containers are skipped by
// counting brackets outside strings.
bool skip_value(Cursor& c) {
  c.skip_ws();
  if (c.p >= c.end) return false;
  if (*c.p == '"') {
    ++c.p;
    std::string_view ignored;
    return read_string(c, ignored);
  }
  if (*c.p == '{' || *c.p == '[') {
    int depth = 0;
    while (c.p < c.end) {
      char ch = *c.p++;
      if (ch == '"') {
        std::string_view ignored;
        if (!read_string(c, ignored)) return false;
      } else if (ch == '{' || ch == '[') {
        ++depth;
      } else if (ch == '}' || ch == ']') {
        if (--depth == 0) return true;
      }
    }
    return false;
  }
  const char* start = c.p;
  while (c.p < c.end && *c.p != ',' && *c.p != '}' && *c.p != ']' && *c.p != ' ' && *c.p != '\t') ++c.p;
  return c.p > start;
}

template <typename T>
bool read_int(Cursor& c, T& out) {
  c.skip_ws();
  auto [ptr, ec] = std::from_chars(c.p, c.end, out);
  if (ec != std::errc() || ptr == c.p) return false;
  c.p = ptr;
  // A fraction or exponent means this is not the integer the format promises.
  return c.p >= c.end || (*c.p != '.' && *c.p != 'e' && *c.p != 'E');
}

bool read_phase(Cursor& c, run_format::Phase& out) {
  if (!c.eat('"')) return false;
  std::string_view text;
  if (!read_string(c, text)) return false;
  out = run_format::parse_phase(text);
  return true;
}

bool is(std::string_view key, const char* name, size_t n) {
  return key.size() == n && std::memcmp(key.data(), name, n) == 0;
}

// The length of a key, for the switch below.
template <size_t N>
constexpr size_t len(const char (&)[N]) {
  return N - 1;
}
// Keys that share a case there must keep sharing a length.
static_assert(len(op_key::kCpu) == len(op_key::kPid));
static_assert(len(op_key::kHighAfter) == len(op_key::kHeldBytes) && len(op_key::kMaxBefore) == len(op_key::kHeldBytes));

static_assert(len(op_key::kSwapBefore) == len(op_key::kHighBefore) && len(op_key::kSwapAfter) == len(op_key::kHeldBytes));

// Where a line's fields go: the op, and its swap counters when the caller keeps them.
struct Fields {
  Op& op;
  OpSwap& swap;
  bool has_swap = false;
};

#define CGMEM_KEY(name) is(key, name, sizeof(name) - 1)

// Reads an integer the report does not keep: a bad one still makes the line bad.
template <typename T>
bool check_int(Cursor& c) {
  T ignored;
  return read_int(c, ignored);
}

// A swap counter: kept, and the line marked as having swap counters.
bool read_swap(Cursor& c, Fields& f, uint64_t& into) {
  f.has_swap = true;
  return read_int(c, into);
}

bool read_field(Cursor& c, std::string_view key, Fields& f) {
  Op& op = f.op;
  // One case per key length; keys of the same length share a case.
  switch (key.size()) {
    case len(op_key::kOp):
      if (CGMEM_KEY(op_key::kOp)) return check_int<uint32_t>(c);
      break;
    case len(op_key::kPid):
      if (CGMEM_KEY(op_key::kPid)) return read_int(c, op.pid);
      if (CGMEM_KEY(op_key::kCpu)) return check_int<int16_t>(c);
      break;
    case len(op_key::kTNs):
      if (CGMEM_KEY(op_key::kTNs)) return read_int(c, op.t_ns);
      break;
    case len(op_key::kPhase):
      if (CGMEM_KEY(op_key::kPhase)) return read_phase(c, op.phase);
      break;
    case len(op_key::kLatNs):
      if (CGMEM_KEY(op_key::kLatNs)) return read_int(c, op.lat_ns);
      break;
    case len(op_key::kMaxAfter):
      if (CGMEM_KEY(op_key::kMaxAfter)) return read_int(c, op.max_after);
      break;
    case len(op_key::kHeldBytes):
      if (CGMEM_KEY(op_key::kHeldBytes)) return check_int<uint64_t>(c);
      if (CGMEM_KEY(op_key::kHighAfter)) return read_int(c, op.high_after);
      if (CGMEM_KEY(op_key::kMaxBefore)) return check_int<uint64_t>(c);
      if (CGMEM_KEY(op_key::kSwapAfter)) return read_swap(c, f, f.swap.after);
      break;
    case len(op_key::kHighBefore):
      if (CGMEM_KEY(op_key::kHighBefore)) return read_int(c, op.high_before);
      if (CGMEM_KEY(op_key::kSwapBefore)) return read_swap(c, f, f.swap.before);
      break;
    case len(op_key::kCurrentAfter):
      if (CGMEM_KEY(op_key::kCurrentAfter)) return read_int(c, op.current_after);
      break;
    case len(op_key::kCurrentBefore):
      if (CGMEM_KEY(op_key::kCurrentBefore)) return read_int(c, op.current_before);
      break;
    case len(op_key::kSwapHighAfter):
      if (CGMEM_KEY(op_key::kSwapHighAfter)) return read_swap(c, f, f.swap.high_after);
      break;
    case len(op_key::kSwapHighBefore):
      if (CGMEM_KEY(op_key::kSwapHighBefore)) return read_swap(c, f, f.swap.high_before);
      break;
    default:
      break;
  }
  return skip_value(c);
}

#undef CGMEM_KEY

// Consumes `text` if the cursor is at it. The length is known when this is
// compiled, so the compare is a few instructions, not a call.
template <size_t N>
bool literal(Cursor& c, const std::array<char, N>& text) {
  if (static_cast<size_t>(c.end - c.p) < N || std::memcmp(c.p, text.data(), N) != 0) return false;
  c.p += N;
  return true;
}

using run_format::json_key_after;

constexpr auto kOpAt = json_key_after('{', op_key::kOp);
constexpr auto kPhaseAt = json_key_after(',', op_key::kPhase);
constexpr auto kPidAt = json_key_after(',', op_key::kPid);
constexpr auto kCpuAt = json_key_after(',', op_key::kCpu);
constexpr auto kTNsAt = json_key_after(',', op_key::kTNs);
constexpr auto kLatNsAt = json_key_after(',', op_key::kLatNs);
constexpr auto kHeldBytesAt = json_key_after(',', op_key::kHeldBytes);
constexpr auto kCurrentBeforeAt = json_key_after(',', op_key::kCurrentBefore);
constexpr auto kCurrentAfterAt = json_key_after(',', op_key::kCurrentAfter);
constexpr auto kHighBeforeAt = json_key_after(',', op_key::kHighBefore);
constexpr auto kHighAfterAt = json_key_after(',', op_key::kHighAfter);
constexpr auto kMaxBeforeAt = json_key_after(',', op_key::kMaxBefore);
constexpr auto kMaxAfterAt = json_key_after(',', op_key::kMaxAfter);
constexpr auto kSwapBeforeAt = json_key_after(',', op_key::kSwapBefore);
constexpr auto kSwapAfterAt = json_key_after(',', op_key::kSwapAfter);
constexpr auto kSwapHighBeforeAt = json_key_after(',', op_key::kSwapHighBefore);
constexpr auto kSwapHighAfterAt = json_key_after(',', op_key::kSwapHighAfter);
constexpr std::array<char, 1> kClose{'}'};

// The swap counters the lab writes last, where the cgroup has them: all
// four in order, or none.
bool lab_swap_tail(Cursor& c, Fields& f) {
  if (!literal(c, kSwapBeforeAt)) return true;
  f.has_swap = true;
  return read_int(c, f.swap.before) && literal(c, kSwapAfterAt) && read_int(c, f.swap.after) &&
         literal(c, kSwapHighBeforeAt) && read_int(c, f.swap.high_before) && literal(c, kSwapHighAfterAt) &&
         read_int(c, f.swap.high_after);
}

// A line exactly as the lab writes it: compact, keys in the documented order.
// Most lines are; reading them key by key without looking for each key's
// end and switching on it halves the scan.
bool scan_lab_line(Cursor& c, Fields& f) {
  Op& op = f.op;
  return literal(c, kOpAt) && check_int<uint32_t>(c) &&
         literal(c, kPhaseAt) && read_phase(c, op.phase) &&
         literal(c, kPidAt) && read_int(c, op.pid) &&
         literal(c, kCpuAt) && check_int<int16_t>(c) &&
         literal(c, kTNsAt) && read_int(c, op.t_ns) &&
         literal(c, kLatNsAt) && read_int(c, op.lat_ns) &&
         literal(c, kHeldBytesAt) && check_int<uint64_t>(c) &&
         literal(c, kCurrentBeforeAt) && read_int(c, op.current_before) &&
         literal(c, kCurrentAfterAt) && read_int(c, op.current_after) &&
         literal(c, kHighBeforeAt) && read_int(c, op.high_before) &&
         literal(c, kHighAfterAt) && read_int(c, op.high_after) &&
         literal(c, kMaxBeforeAt) && check_int<uint64_t>(c) &&
         literal(c, kMaxAfterAt) && read_int(c, op.max_after) && lab_swap_tail(c, f) &&
         literal(c, kClose) && c.p == c.end;
}

// Any JSON object: keys in any order, whitespace, unknown keys skipped. An
// op must say which op it was, when it started and how long it took.
bool scan_any_line(Cursor& c, Fields& f) {
  if (!c.eat('{')) return false;
  if (c.eat('}')) return false;
  bool has_op = false, has_t = false, has_lat = false;
  for (;;) {
    if (!c.eat('"')) return false;
    std::string_view key;
    if (!read_string(c, key)) return false;
    if (!c.eat(':')) return false;
    has_op |= key == op_key::kOp;
    has_t |= key == op_key::kTNs;
    has_lat |= key == op_key::kLatNs;
    if (!read_field(c, key, f)) return false;
    c.skip_ws();
    if (c.p >= c.end) return false;
    char sep = *c.p++;
    if (sep == '}') break;
    if (sep != ',') return false;
  }
  c.skip_ws();
  return c.p == c.end && has_op && has_t && has_lat;
}

bool scan_lab(std::string_view line, Fields& f) {
  Cursor c{line.data(), line.data() + line.size()};
  return scan_lab_line(c, f);
}

bool scan(std::string_view line, Fields& f) {
  if (scan_lab(line, f)) return f.op.lat_ns >= 0;
  // Not the lab's exact shape: read it again in general. Fields the first
  // try set came from this same line, so they are what this read gives too.
  f.has_swap = false;
  Cursor c{line.data(), line.data() + line.size()};
  return scan_any_line(c, f) && f.op.lat_ns >= 0;
}

}  // namespace

bool scan_lab_op_line(std::string_view line, Op& op, OpSwap& swap, bool& has_swap) {
  Fields f{op, swap};
  bool ok = scan_lab(line, f);
  has_swap = f.has_swap;
  return ok;
}

bool scan_op_line(std::string_view line, Op& op, OpSwap& swap, bool& has_swap) {
  Fields f{op, swap};
  bool ok = scan(line, f);
  has_swap = f.has_swap;
  return ok;
}

bool scan_lab_op_line(std::string_view line, Op& op) {
  OpSwap ignored;
  bool has_swap = false;
  return scan_lab_op_line(line, op, ignored, has_swap);
}

bool scan_op_line(std::string_view line, Op& op) {
  OpSwap ignored;
  bool has_swap = false;
  return scan_op_line(line, op, ignored, has_swap);
}

}  // namespace cgmem::report
