// /proc/PID/wchan: the kernel function a sleeping task waits in, with no
// trailing newline ("mem_cgroup_handle_over_high"); "0" or empty when the
// task is running.
#pragma once

#include <string_view>

namespace cgmem::proc {

// The function name, or empty when the task is not waiting. Never fails.
std::string_view parse_wchan(std::string_view text) noexcept;

}  // namespace cgmem::proc
