// Line-based manager files: a systemd unit file and Slurm's cgroup.conf,
// each parsed and translated.
#include "fuzz.h"
#include "manager_invariants.h"
#include "managers/slurm.h"
#include "managers/systemd.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace cgmem;
  auto text = fuzz::text(data, size);
  if (auto unit = managers::parse_unit_file(text, "fuzz.service")) {
    if (auto t = managers::translate_systemd({.unit = *unit, .ram = 8326963200}))
      fuzz::check_translation(*t, 4096);
  }
  managers::SlurmInput in{.job_mb = 4096, .real_memory_mb = 16000};
  if (managers::apply_slurm_conf(text, in.conf)) {
    if (auto t = managers::translate_slurm(in, 4096)) fuzz::check_translation(*t, 4096);
  }
  return 0;
}
