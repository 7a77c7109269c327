// Reading optional fields from nlohmann::json without ever throwing: a
// missing key or a value of the wrong type gives nullopt. For every JSON
// cgmem reads back (run directories, batch records, entries, snapshots),
// which someone may have edited or sent.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace cgmem {

using Json = nlohmann::json;

// The value at `key` of an object, or null (not an object, no such key).
inline const Json* json_child(const Json& j, const char* key) {
  if (!j.is_object()) return nullptr;
  auto it = j.find(key);
  return it == j.end() ? nullptr : &*it;
}

inline std::optional<uint64_t> get_u64(const Json& j, const char* key) {
  const Json* v = json_child(j, key);
  if (!v) return std::nullopt;
  if (v->is_number_unsigned()) return v->get<uint64_t>();
  if (v->is_number_integer() && v->get<int64_t>() >= 0) return static_cast<uint64_t>(v->get<int64_t>());
  return std::nullopt;
}

inline std::optional<int64_t> get_i64(const Json& j, const char* key) {
  const Json* v = json_child(j, key);
  if (!v || !v->is_number_integer()) return std::nullopt;
  if (v->is_number_unsigned() && v->get<uint64_t>() > INT64_MAX) return std::nullopt;
  return v->get<int64_t>();
}

inline std::optional<double> get_f64(const Json& j, const char* key) {
  const Json* v = json_child(j, key);
  if (!v || !v->is_number()) return std::nullopt;
  return v->get<double>();
}

inline std::optional<std::string> get_str(const Json& j, const char* key) {
  const Json* v = json_child(j, key);
  if (!v || !v->is_string()) return std::nullopt;
  return v->get<std::string>();
}

inline std::optional<bool> get_bool(const Json& j, const char* key) {
  const Json* v = json_child(j, key);
  if (!v || !v->is_boolean()) return std::nullopt;
  return v->get<bool>();
}

}  // namespace cgmem
