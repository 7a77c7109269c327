// The report's readers of a run directory: any bytes as ops.jsonl and
// samples.jsonl, line by line, and as meta.json and outcome.json. Nothing
// may crash or throw; a line the op scanner accepts holds no key it skipped
// wrongly (scanning it twice gives the same op), and a line in the lab's
// exact shape reads the same through the scanner's general path.
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
    // A line the fast path takes reads the same through the general path
    // (spaces after ':' and ',' outside strings keep it off the fast path).
    report::Op fast;
    if (report::scan_lab_op_line(line, fast)) {
      std::string spaced;
      bool in_string = false;
      for (size_t i = 0; i < line.size(); ++i) {
        char c = line[i];
        spaced += c;
        if (c == '"' && (i == 0 || line[i - 1] != '\\')) in_string = !in_string;
        if (!in_string && (c == ':' || c == ',')) spaced += ' ';
      }
      report::Op general;
      fuzz::check(report::scan_op_line(spaced, general));
      fuzz::check(fast.t_ns == general.t_ns && fast.lat_ns == general.lat_ns && fast.phase == general.phase &&
                  fast.current_before == general.current_before && fast.current_after == general.current_after &&
                  fast.high_before == general.high_before && fast.high_after == general.high_after &&
                  fast.max_after == general.max_after);
    }
    report::Sample s;
    report::parse_sample_line(line, s);
    return ok;
  });
  (void)report::parse_meta(text, "meta.json");
  (void)report::parse_outcome(text, "outcome.json");
  return 0;
}
