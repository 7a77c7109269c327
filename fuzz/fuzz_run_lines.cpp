// The report's readers of a run directory: any bytes as ops.jsonl and
// samples.jsonl, line by line, and as meta.json and outcome.json. Nothing
// may crash or throw; a line the op scanner accepts holds no key it skipped
// wrongly (scanning it twice gives the same op), and a line in the lab's
// exact shape reads the same through the scanner's general path, its swap
// counters included.
#include "fuzz.h"
#include "report/jsonl.h"
#include "report/op_scan.h"
#include "report/read_run.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace cgmem;
  auto text = fuzz::text(data, size);
  auto same_swap = [](const report::OpSwap& x, const report::OpSwap& y) {
    return x.before == y.before && x.after == y.after && x.high_before == y.high_before && x.high_after == y.high_after;
  };
  report::for_each_line(text, [&](std::string_view line) {
    report::Op a, b;
    report::OpSwap a_swap, b_swap;
    bool a_has = false, b_has = false;
    bool ok = report::scan_op_line(line, a, a_swap, a_has);
    fuzz::check(ok == report::scan_op_line(line, b));
    fuzz::check(ok == report::scan_op_line(line, b, b_swap, b_has));
    if (ok)
      fuzz::check(a.t_ns == b.t_ns && a.lat_ns == b.lat_ns && a.phase == b.phase &&
                  a.current_after == b.current_after && a.high_after == b.high_after && a.pid == b.pid &&
                  a_has == b_has && same_swap(a_swap, b_swap));
    // A line the fast path takes reads the same through the general path
    // (spaces after ':' and ',' outside strings keep it off the fast path).
    report::Op fast;
    report::OpSwap fast_swap;
    bool fast_has = false;
    if (report::scan_lab_op_line(line, fast, fast_swap, fast_has)) {
      std::string spaced;
      bool in_string = false;
      for (size_t i = 0; i < line.size(); ++i) {
        char c = line[i];
        spaced += c;
        if (c == '"' && (i == 0 || line[i - 1] != '\\')) in_string = !in_string;
        if (!in_string && (c == ':' || c == ',')) spaced += ' ';
      }
      report::Op general;
      report::OpSwap general_swap;
      bool general_has = false;
      fuzz::check(report::scan_op_line(spaced, general, general_swap, general_has));
      fuzz::check(fast.t_ns == general.t_ns && fast.lat_ns == general.lat_ns && fast.phase == general.phase &&
                  fast.current_before == general.current_before && fast.current_after == general.current_after &&
                  fast.high_before == general.high_before && fast.high_after == general.high_after &&
                  fast.max_after == general.max_after && fast_has == general_has && same_swap(fast_swap, general_swap));
    }
    report::SampleLine s;
    report::parse_sample_line(line, s);
    return ok;
  });
  (void)report::parse_meta(text, "meta.json");
  (void)report::parse_outcome(text, "outcome.json");
  return 0;
}
