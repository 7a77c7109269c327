// One handler per subcommand, each in its own cmd_NAME.cpp.
#pragma once

#include <span>

namespace cgmem::cli {

int run_version(std::span<char*> args);
int run_host(std::span<char*> args);
int run_model(std::span<char*> args);
int run_advise(std::span<char*> args);
int run_vm(std::span<char*> args);
int run_translate(std::span<char*> args);
int run_workload(std::span<char*> args);
int run_run(std::span<char*> args);
int run_gc(std::span<char*> args);
int run_report(std::span<char*> args);
int run_matrix(std::span<char*> args);
int run_kernel(std::span<char*> args);
int run_watch(std::span<char*> args);
int run_top(std::span<char*> args);
int run_guard(std::span<char*> args);
int run_exporter(std::span<char*> args);

}  // namespace cgmem::cli
