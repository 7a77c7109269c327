// The report's readers of a run directory: any bytes as ops.jsonl and
// samples.jsonl, line by line, and as meta.json and outcome.json. Nothing
// may crash or throw; a line the op scanner accepts holds no key it skipped
// wrongly (scanning it twice gives the same op).
#include "fuzz.h"
#include "report/jsonl.h"
#include "report/op_scan.h"
#include "report/read_run.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace cgmem;
  auto text = fuzz::text(data, size);
  report::for_each_line(text, [](std::string_view line) {
    report::Op a, b;
    bool ok = report::scan_op_line(line, a);
    fuzz::check(ok == report::scan_op_line(line, b));
    if (ok)
      fuzz::check(a.t_ns == b.t_ns && a.lat_ns == b.lat_ns && a.phase == b.phase &&
                  a.current_after == b.current_after && a.high_after == b.high_after);
    report::Sample s;
    report::parse_sample_line(line, s);
    return ok;
  });
  (void)report::parse_meta(text, "meta.json");
  (void)report::parse_outcome(text, "outcome.json");
  return 0;
}
