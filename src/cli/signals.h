// How a long command stops: SIGINT, SIGTERM and SIGHUP set a flag instead of
// killing cgmem, so it can end what it started (QEMU, a matrix's children, a
// kernel build) by PID and leave whole results behind.
#pragma once

#include <csignal>

namespace cgmem::cli {

void catch_stop_signals();
bool stop_requested();
// The flag itself, for the modules that poll it (vm, matrix, kernel build).
volatile std::sig_atomic_t* stop_flag();

}  // namespace cgmem::cli
