// A saved snapshot as `cgmem watch --once` reads it: snapshot.json and a
// cgmem.inode from any bytes. Nothing may crash or throw; an accepted
// snapshot.json holds an HZ and a page size the model can divide by, and
// two samples in order; a forecast with its facts is computed without a crash.
#include <string>

#include "fuzz.h"
#include "watch/forecast.h"
#include "watch/snapshot.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace cgmem;
  auto text = fuzz::text(data, size);
  (void)watch::parse_saved_id(text);
  auto meta = watch::parse_snapshot_meta(text, "snapshot.json");
  if (!meta) return 0;
  fuzz::check(model::plausible_hz(meta->kernel_facts.hz));
  fuzz::check(model::plausible_page_size(meta->kernel_facts.page_size));
  fuzz::check(meta->t_ns[1] > meta->t_ns[0]);
  watch::Sample s{.current = 64 << 20, .high = Limit::of(32 << 20), .max = Limit::of(128 << 20)};
  watch::Rates r;
  r.dt_s = double(meta->t_ns[1] - meta->t_ns[0]) / 1e9;
  r.growth_bytes_per_s = 1 << 20;
  (void)watch::forecast(s, r, meta->kernel_facts, 1);
  return 0;
}
