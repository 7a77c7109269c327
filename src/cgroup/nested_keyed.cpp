#include "cgroup/nested_keyed.h"

#include <charconv>

namespace cgmem::cgroup {

std::string DeviceId::text() const { return std::to_string(major) + ":" + std::to_string(minor); }

std::optional<DeviceId> to_device(std::string_view text) noexcept {
  size_t colon = text.find(':');
  if (colon == std::string_view::npos) return std::nullopt;
  auto major = to_u64(text.substr(0, colon));
  auto minor = to_u64(text.substr(colon + 1));
  if (!major || !minor || *major > UINT32_MAX || *minor > UINT32_MAX) return std::nullopt;
  return DeviceId{static_cast<uint32_t>(*major), static_cast<uint32_t>(*minor)};
}

namespace {

// The entry for device in entries, appended when it is not there yet.
template <typename T>
T& entry_for(std::vector<T>& entries, DeviceId device) {
  if (entries.empty() || entries.back().device != device) {
    entries.push_back(T{});
    entries.back().device = device;
  }
  return entries.back();
}

std::unexpected<Error> no_device_line(std::string_view text, std::string_view source) {
  return fail("parse " + std::string(source) + ": no 'MAJ:MIN key=value' line in " +
              quote(trim(text)));
}

}  // namespace

Result<std::vector<IoMax>> parse_io_max(std::string_view text, std::string_view source) {
  std::vector<IoMax> out;
  size_t malformed = for_each_nested(text, [&](DeviceId device, std::string_view key,
                                               std::string_view value) {
    IoMax& entry = entry_for(out, device);
    auto limit = to_limit(value);
    if (!limit) return;
    if (key == "rbps") entry.rbps = limit;
    if (key == "wbps") entry.wbps = limit;
    if (key == "riops") entry.riops = limit;
    if (key == "wiops") entry.wiops = limit;
  });
  if (out.empty() && malformed > 0) return no_device_line(text, source);
  return out;
}

std::string format_io_max(const IoMax& entry) {
  std::string out = entry.device.text();
  auto add = [&](const char* key, const std::optional<Limit>& limit) {
    if (!limit) return;
    out += std::string(" ") + key + "=" + (limit->is_max() ? "max" : std::to_string(limit->bytes()));
  };
  add("rbps", entry.rbps);
  add("wbps", entry.wbps);
  add("riops", entry.riops);
  add("wiops", entry.wiops);
  return out;
}

}  // namespace cgmem::cgroup
