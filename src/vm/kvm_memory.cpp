#include "vm/kvm_memory.h"

#include "common/file.h"
#include "common/text.h"

namespace cgmem::vm {

namespace {

constexpr uint64_t kMaxRecord = 4096;

std::string boot_id() {
  auto id = read_file("/proc/sys/kernel/random/boot_id", "the host's boot id", 64);
  return id ? std::string(cgmem::trim(*id)) : std::string();
}

std::string record_path(const std::string& cache) { return cache + "/kvm-failed"; }

}  // namespace

std::optional<std::string> remembered_kvm_failure(const std::string& cache) {
  std::string id = boot_id();
  if (id.empty()) return std::nullopt;
  auto record = read_file(record_path(cache), "the remembered KVM failure", kMaxRecord);
  if (!record) return std::nullopt;
  // "BOOT-ID\nFAILURE\n"
  size_t newline = record->find('\n');
  if (newline == std::string::npos || record->substr(0, newline) != id) return std::nullopt;
  std::string failure(cgmem::trim(std::string_view(*record).substr(newline + 1)));
  return failure.empty() ? std::nullopt : std::optional(visible(failure));
}

void remember_kvm_failure(const std::string& cache, const std::string& failure) {
  std::string id = boot_id();
  if (id.empty()) return;
  (void)write_file_atomic(record_path(cache), id + "\n" + std::string(utf8_prefix(failure, 1024)) + "\n");
}

}  // namespace cgmem::vm
