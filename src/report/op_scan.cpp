#include "report/op_scan.h"

#include <charconv>
#include <cstdint>
#include <cstring>
#include <limits>

namespace cgmem::report {

namespace {

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

bool read_phase(Cursor& c, Phase& out) {
  if (!c.eat('"')) return false;
  std::string_view text;
  if (!read_string(c, text)) return false;
  if (text == "grow") out = Phase::kGrow;
  else if (text == "churn") out = Phase::kChurn;
  else if (text == "own_high") out = Phase::kOwnHigh;
  else out = Phase::kOther;
  return true;
}

bool is(std::string_view key, const char* name, size_t n) {
  return key.size() == n && std::memcmp(key.data(), name, n) == 0;
}

#define CGMEM_KEY(name) is(key, name, sizeof(name) - 1)

// Reads an integer the report does not keep: a bad one still makes the line bad.
template <typename T>
bool check_int(Cursor& c) {
  T ignored;
  return read_int(c, ignored);
}

bool read_field(Cursor& c, std::string_view key, Op& op) {
  switch (key.size()) {
    case 2:
      if (CGMEM_KEY("op")) return check_int<uint32_t>(c);
      break;
    case 3:
      if (CGMEM_KEY("pid")) return check_int<int32_t>(c);
      if (CGMEM_KEY("cpu")) return check_int<int16_t>(c);
      break;
    case 4:
      if (CGMEM_KEY("t_ns")) return read_int(c, op.t_ns);
      break;
    case 5:
      if (CGMEM_KEY("phase")) return read_phase(c, op.phase);
      break;
    case 6:
      if (CGMEM_KEY("lat_ns")) return read_int(c, op.lat_ns);
      break;
    case 9:
      if (CGMEM_KEY("max_after")) return read_int(c, op.max_after);
      break;
    case 10:
      if (CGMEM_KEY("held_bytes")) return check_int<uint64_t>(c);
      if (CGMEM_KEY("high_after")) return read_int(c, op.high_after);
      if (CGMEM_KEY("max_before")) return check_int<uint64_t>(c);
      break;
    case 11:
      if (CGMEM_KEY("high_before")) return read_int(c, op.high_before);
      break;
    case 13:
      if (CGMEM_KEY("current_after")) return read_int(c, op.current_after);
      break;
    case 14:
      if (CGMEM_KEY("current_before")) return read_int(c, op.current_before);
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
bool literal(Cursor& c, const char (&text)[N]) {
  constexpr size_t n = N - 1;
  if (static_cast<size_t>(c.end - c.p) < n || std::memcmp(c.p, text, n) != 0) return false;
  c.p += n;
  return true;
}

// A line exactly as the lab writes it: compact, keys in the documented order.
// Most lines are; reading them key by key without looking for each key's
// end and switching on it halves the scan.
bool scan_lab_line(Cursor& c, Op& op) {
  return literal(c, R"({"op":)") && check_int<uint32_t>(c) &&
         literal(c, R"(,"phase":)") && read_phase(c, op.phase) &&
         literal(c, R"(,"pid":)") && check_int<int32_t>(c) &&
         literal(c, R"(,"cpu":)") && check_int<int16_t>(c) &&
         literal(c, R"(,"t_ns":)") && read_int(c, op.t_ns) &&
         literal(c, R"(,"lat_ns":)") && read_int(c, op.lat_ns) &&
         literal(c, R"(,"held_bytes":)") && check_int<uint64_t>(c) &&
         literal(c, R"(,"current_before":)") && read_int(c, op.current_before) &&
         literal(c, R"(,"current_after":)") && read_int(c, op.current_after) &&
         literal(c, R"(,"high_before":)") && read_int(c, op.high_before) &&
         literal(c, R"(,"high_after":)") && read_int(c, op.high_after) &&
         literal(c, R"(,"max_before":)") && check_int<uint64_t>(c) &&
         literal(c, R"(,"max_after":)") && read_int(c, op.max_after) &&
         literal(c, "}") && c.p == c.end;
}

// Any JSON object: keys in any order, whitespace, unknown keys skipped. An
// op must say which op it was, when it started and how long it took.
bool scan_any_line(Cursor& c, Op& op) {
  if (!c.eat('{')) return false;
  if (c.eat('}')) return false;
  bool has_op = false, has_t = false, has_lat = false;
  for (;;) {
    if (!c.eat('"')) return false;
    std::string_view key;
    if (!read_string(c, key)) return false;
    if (!c.eat(':')) return false;
    has_op |= key == "op";
    has_t |= key == "t_ns";
    has_lat |= key == "lat_ns";
    if (!read_field(c, key, op)) return false;
    c.skip_ws();
    if (c.p >= c.end) return false;
    char sep = *c.p++;
    if (sep == '}') break;
    if (sep != ',') return false;
  }
  c.skip_ws();
  return c.p == c.end && has_op && has_t && has_lat;
}

}  // namespace

bool scan_lab_op_line(std::string_view line, Op& op) {
  Cursor c{line.data(), line.data() + line.size()};
  return scan_lab_line(c, op);
}

bool scan_op_line(std::string_view line, Op& op) {
  if (scan_lab_op_line(line, op)) return op.lat_ns >= 0;
  // Not the lab's exact shape: read it again in general. Fields the first
  // try set came from this same line, so they are what this read gives too.
  Cursor c{line.data(), line.data() + line.size()};
  return scan_any_line(c, op) && op.lat_ns >= 0;
}

}  // namespace cgmem::report
