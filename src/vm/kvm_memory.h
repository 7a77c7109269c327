// What cgmem remembers of a KVM that fails guests. On some hosts (nested
// ones) KVM passes probe_accel but every guest stops on its first
// instructions ("KVM internal error ... emulation failure"); each boot then
// loses the KVM attempt (about 35 s here) before TCG boots it again. The
// first such failure is written to the cache, keyed by the host's boot id,
// and later boots of the same host boot go to TCG at once. A reboot of the
// host, or `--accel kvm`, tries KVM again.
#pragma once

#include <optional>
#include <string>

namespace cgmem::vm {

// `cache`/kvm-failed: the failure remembered since this host booted, if any.
std::optional<std::string> remembered_kvm_failure(const std::string& cache);

// Writes `failure` there, atomically; a cache that cannot be written only
// means the next boot tries KVM again.
void remember_kvm_failure(const std::string& cache, const std::string& failure);

}  // namespace cgmem::vm
