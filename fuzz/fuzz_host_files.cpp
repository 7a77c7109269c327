// The files the host probe reads: mountinfo, swaps, meminfo, the kernel
// config, the CPU list and sysfs choice files.
#include "host/probe.h"
#include "cgroup/mountinfo.h"
#include "fuzz.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace cgmem;
  auto text = fuzz::text(data, size);
  auto mounts = cgroup::parse_mountinfo(text);
  (void)cgroup::cgroup2_mount(mounts);
  (void)cgroup::cgroup1_mount(mounts, "memory");
  for (const auto& swap : host::parse_swaps(text)) fuzz::check(!swap.name.empty());
  (void)host::mem_total(text);
  if (auto hz = host::config_hz(text)) fuzz::check(*hz > 0);
  if (auto cpus = host::count_cpu_list(text)) fuzz::check(*cpus > 0);
  fuzz::check(host::chosen_word(text).size() <= text.size());
  return 0;
}
