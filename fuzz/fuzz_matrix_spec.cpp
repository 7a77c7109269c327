// A matrix spec (TOML): any bytes. Nothing may crash or throw; a spec that
// is accepted plans a bounded number of runs, each named by one safe path
// component (the runner creates and may remove a directory of that name
// inside the batch).
#include "fuzz.h"
#include "matrix/plan.h"
#include "matrix/spec.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace cgmem;
  auto spec = matrix::parse_spec(fuzz::text(data, size), "/specs/fuzz.toml");
  if (!spec) return 0;
  auto runs = matrix::plan(*spec, {.batch_dir = "/batch"});
  fuzz::check(!runs.empty() && runs.size() <= 100000);
  for (const auto& run : runs) {
    fuzz::check(!run.name.empty() && run.name[0] != '.' && run.name.find('/') == std::string::npos);
    fuzz::check(run.name.find('\0') == std::string::npos);
  }
  return 0;
}
