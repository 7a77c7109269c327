// An OCI config.json, through runc's and crun's rules.
#include "fuzz.h"
#include "manager_invariants.h"
#include "managers/oci.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace cgmem;
  auto spec = managers::parse_oci_spec(fuzz::text(data, size));
  if (!spec) return 0;
  if (auto t = managers::translate_runc(*spec, 4096)) fuzz::check_translation(*t, 4096);
  managers::Translation crun;
  if (managers::crun_assignments(*spec, "container", 4096, crun)) fuzz::check_translation(crun, 4096);
  return 0;
}
