#include "trace/format.h"

#include <fmt/format.h>

#include <cstring>

#include "common/text.h"

namespace cgmem::trace {
namespace {

// "offset:8;" -> 8, from the text after "offset:" up to ';'.
std::optional<uint32_t> attribute(std::string_view line, std::string_view key) {
  size_t at = line.find(key);
  if (at == std::string_view::npos) return std::nullopt;
  std::string_view rest = line.substr(at + key.size());
  size_t end = rest.find(';');
  if (end == std::string_view::npos) return std::nullopt;
  auto value = to_u64(trim(rest.substr(0, end)));
  if (!value || *value > UINT32_MAX) return std::nullopt;
  return static_cast<uint32_t>(*value);
}

// "field:unsigned int cpu;" -> "cpu"; "field:char comm[16];" -> "comm";
// "field:__data_loc char[] name;" -> "name".
std::optional<std::string> field_name(std::string_view declaration) {
  size_t end = declaration.find(';');
  if (end == std::string_view::npos) return std::nullopt;
  std::string_view decl = trim(declaration.substr(0, end));
  if (decl.ends_with(']')) decl = decl.substr(0, decl.rfind('['));  // "comm[16]"
  size_t space = decl.find_last_of(" \t");
  std::string_view name = space == std::string_view::npos ? decl : decl.substr(space + 1);
  if (name.empty()) return std::nullopt;
  for (char c : name)
    if (!(c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')))
      return std::nullopt;
  return std::string(name);
}

}  // namespace

const Field* EventFormat::field(std::string_view name) const {
  for (const auto& f : fields)
    if (f.name == name) return &f;
  return nullptr;
}

Result<EventFormat> parse_format(std::string_view text) {
  EventFormat format;
  std::string_view rest = text;
  while (!rest.empty()) {
    std::string_view line = trim(next_line(rest));
    if (line.starts_with("name:")) {
      format.name = std::string(trim(line.substr(5)));
    } else if (line.starts_with("ID:")) {
      auto id = to_u64(trim(line.substr(3)));
      if (!id || *id > UINT16_MAX) return fail(fmt::format("a trace event format with the ID {}", quote(line)));
      format.id = static_cast<uint32_t>(*id);
    } else if (line.starts_with("field:")) {
      auto name = field_name(line.substr(6));
      auto offset = attribute(line, "offset:");
      auto size = attribute(line, "size:");
      auto is_signed = attribute(line, "signed:");
      if (!name || !offset || !size || !is_signed || *is_signed > 1 || *size == 0 ||
          uint64_t{*offset} + *size > UINT16_MAX)
        return fail(fmt::format("a trace event format's field line {}", quote(line)));
      format.fields.push_back({.name = *name, .offset = *offset, .size = *size, .is_signed = *is_signed == 1});
    } else if (line.starts_with("print fmt:")) {
      break;  // the rest is the printf format, not layout
    }
  }
  if (format.fields.empty()) return fail("a trace event format with no fields");
  return format;
}

std::optional<uint64_t> read_unsigned(const Field& field, std::span<const uint8_t> data) {
  if (field.size != 1 && field.size != 2 && field.size != 4 && field.size != 8) return std::nullopt;
  if (field.offset > data.size() || data.size() - field.offset < field.size) return std::nullopt;
  uint64_t value = 0;
  for (uint32_t i = 0; i < field.size; ++i) value |= uint64_t{data[field.offset + i]} << (8 * i);
  return value;
}

std::optional<int64_t> read_signed(const Field& field, std::span<const uint8_t> data) {
  auto raw = read_unsigned(field, data);
  if (!raw) return std::nullopt;
  if (field.size == 8) return static_cast<int64_t>(*raw);
  uint64_t sign = uint64_t{1} << (8 * field.size - 1);
  if (field.is_signed && (*raw & sign)) return static_cast<int64_t>(*raw | ~((sign << 1) - 1));
  return static_cast<int64_t>(*raw);
}

std::optional<std::string_view> read_chars(const Field& field, std::span<const uint8_t> data) {
  if (field.offset > data.size() || data.size() - field.offset < field.size) return std::nullopt;
  const char* start = reinterpret_cast<const char*>(data.data() + field.offset);
  size_t length = ::strnlen(start, field.size);
  return std::string_view(start, length);
}

}  // namespace cgmem::trace
