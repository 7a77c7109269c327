// meta.json as the report reads it: any bytes. Nothing may crash or throw;
// a meta.json that is accepted holds values the report can divide by, and
// the summary and the predictions of a run with that meta.json (and one
// op) are computed without a crash (a page size of 0 once gave SIGFPE),
// memory.swap.high's check (predict.md section 7) among them.
#include "fuzz.h"
#include "report/predict.h"
#include "report/read_run.h"
#include "report/summary.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace cgmem;
  auto meta = report::parse_meta(fuzz::text(data, size), "meta.json");
  if (!meta) return 0;
  fuzz::check(meta->page_size >= 4096 && (meta->page_size & (meta->page_size - 1)) == 0);
  fuzz::check(meta->hz >= 0 && meta->hz <= 10000);
  fuzz::check(meta->chunk_bytes > 0 && meta->chunk_bytes % meta->page_size == 0);
  report::Run run;
  run.meta = *meta;
  // With swap counters, so a meta.json with memory.swap.high reaches section 7's arithmetic too.
  run.ops.push_back(report::Op{.t_ns = 1, .lat_ns = 2, .current_before = 4096, .current_after = 8192},
                    report::OpSwap{.before = 8192, .after = 8192, .high_before = 0, .high_after = 17});
  (void)report::summarize(run);
  (void)report::predict(run);
  return 0;
}
