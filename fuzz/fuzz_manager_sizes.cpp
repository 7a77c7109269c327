// Every size parser of the managers: go-units (docker, podman, compose),
// systemd's parse_size() and shares, Kubernetes quantities, Incus and
// Slurm sizes. A value parsed once reads the same from its own digits.
#include <string>

#include "fuzz.h"
#include "managers/go_units.h"
#include "managers/incus.h"
#include "managers/kubelet.h"
#include "managers/quantity.h"
#include "managers/slurm.h"
#include "managers/systemd.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace cgmem;
  auto text = fuzz::text(data, size);
  if (auto v = managers::parse_go_units_ram(text)) {
    fuzz::check(*v >= 0);
    if (*v < (int64_t{1} << 53))  // exact in a double, so its digits read back the same
      fuzz::check(managers::parse_go_units_ram(std::to_string(*v)) == *v);
  }
  if (auto v = managers::parse_systemd_size(text))
    fuzz::check(managers::parse_systemd_size(std::to_string(*v)) == *v);
  if (auto share = managers::parse_permyriad(text)) fuzz::check(*share >= -1 && *share <= 10000);
  if (auto v = managers::parse_quantity(text)) {
    fuzz::check(*v >= 0);
    fuzz::check(managers::parse_quantity(std::to_string(*v)) == *v);
  }
  if (auto v = managers::parse_incus_size(text)) {
    fuzz::check(*v >= 0);
    fuzz::check(managers::parse_incus_size(std::to_string(*v)) == *v);
  }
  if (auto mb = managers::parse_slurm_mem(text)) fuzz::check(*mb <= static_cast<uint64_t>(INT64_MAX));
  (void)managers::parse_kube_version(text);
  return 0;
}
