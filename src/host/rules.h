// The throttle rules of the kernel this runs on (model/kernel_rules.h):
// its version from the release (PROC/sys/kernel/osrelease, what uname -r
// prints), and the stock's slots from SYS/module/memcontrol/parameters/
// stock_slots where that file exists (cgmem's patched kernel, booted with
// memcontrol.stock_slots=N; "1\n" to "7\n"). Read only.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "host/probe.h"
#include "model/kernel_rules.h"

namespace cgmem::host {

// "7\n" -> 7; nullopt unless a whole number from 1 to 7.
std::optional<uint32_t> parse_stock_slots(std::string_view text);
std::optional<uint32_t> read_stock_slots(const std::string& sys_root = "/sys");

// The rules of `release` with the slots the kernel reports. A release that
// names no version gives Debian's 6.12 rules (what cgmem assumed before).
model::KernelRules kernel_rules(std::string_view release, std::optional<uint32_t> stock_slots);
model::KernelRules host_kernel_rules(const HostRoots& roots = {});

}  // namespace cgmem::host
