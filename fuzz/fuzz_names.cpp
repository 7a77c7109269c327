// A cgroup's name as every output shows it: visible() and the exporter's
// label_value() give valid UTF-8 (nlohmann's strict dump accepts it) with
// no control byte, the label value is at most kMaxLabelValue bytes, and a
// name that needs no escape is shown as it is.
#include <nlohmann/json.hpp>

#include "common/text.h"
#include "exporter/labels.h"
#include "fuzz.h"

namespace {

bool printable_utf8(const std::string& s) {
  for (char c : s)
    if ((static_cast<unsigned char>(c) < 0x20) || c == 0x7f) return false;
  try {
    (void)nlohmann::json(s).dump();  // throws on invalid UTF-8
  } catch (const nlohmann::json::type_error&) {
    return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace cgmem;
  auto name = fuzz::text(data, size);
  std::string shown = visible(name);
  fuzz::check(printable_utf8(shown));
  fuzz::check(shown.size() >= name.size());
  bool plain = true;
  for (char c : name) plain = plain && c >= 0x20 && c < 0x7f && c != '\\';
  if (plain) fuzz::check(shown == name);
  bool cut = false;
  std::string label = exporter::label_value(name, cut);
  fuzz::check(printable_utf8(label));
  fuzz::check(label.size() <= exporter::kMaxLabelValue);
  fuzz::check(cut == (shown.size() > exporter::kMaxLabelValue));
  if (!cut) fuzz::check(label == shown);
  fuzz::check(utf8_prefix(shown, size % 64).size() <= size % 64);
  return 0;
}
