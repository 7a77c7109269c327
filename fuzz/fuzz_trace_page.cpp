// The trace reader (src/trace): a ring-buffer page as trace_pipe_raw gives
// it, its events decoded by the formats of cgmem's kernel; or, when the
// first byte is 'f', the rest as an event's format file.
#include <fstream>
#include <sstream>

#include "fuzz.h"
#include "trace/format.h"
#include "trace/records.h"
#include "trace/ring_page.h"

namespace {

using namespace cgmem::trace;

const Decoder& decoder() {
  static const Decoder d = [] {
    std::vector<std::pair<Kind, EventFormat>> formats;
    for (const auto& e : kEvents) {
      std::ifstream in(std::string(CGMEM_TRACEFS_FIXTURE) + "/events/" + std::string(e.system) + "/" +
                       std::string(e.name) + "/format");
      std::ostringstream text;
      text << in.rdbuf();
      formats.emplace_back(e.kind, parse_format(text.str()).value());
    }
    return Decoder::create(formats).value();
  }();
  return d;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace cgmem;
  if (size > 0 && data[0] == 'f') {
    auto format = parse_format(fuzz::text(data + 1, size - 1));
    if (format)
      for (const auto& f : format->fields) fuzz::check(f.size > 0 && f.offset + f.size <= 65535 && !f.name.empty());
    return 0;
  }
  std::span<const uint8_t> bytes(data, size);
  auto page = parse_page(bytes, PageLayout{});
  if (!page) return 0;
  for (const auto& e : page->events) {
    fuzz::check(e.data.data() >= data && e.data.data() + e.data.size() <= data + size);
    if (auto decoded = decoder().decode(e.data, [](uint64_t a) { return std::to_string(a); }))
      (void)decoded->fields.dump();  // strict: every text is valid UTF-8
  }
  return 0;
}
