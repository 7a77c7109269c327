// `cgmem run`'s flags and the checks it makes before it creates anything, in
// one place: `cgmem run` parses its own words with them against this host,
// and `cgmem matrix --plan` parses each planned run's words with them against
// the machine the batch would run on (the guest, for the VM). So a plan
// refuses exactly what the run itself would refuse.
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/error.h"
#include "lab/run_options.h"
#include "lab/workload_options.h"

namespace cgmem::cli {

struct RunRequest {
  lab::RunOptions options;
  lab::WorkloadOptions workload;  // the built-in workload's options; unset for --command
  bool command = false;           // --command: the words after `--` are a program
  bool json = false;
  uint64_t neighbour_ns = 0;      // --neighbour as parsed; 0: none
  std::optional<unsigned> neighbours;  // --neighbours as parsed
};

// Every flag of `cgmem run` (the words before `--`), filling `request`.
void add_run_flags(CLI::App& app, RunRequest& request);

// `cgmem run`'s words split at the first `--`: its flags, and the workload's
// options (or the program's words) after it.
std::pair<std::vector<std::string>, std::vector<std::string>> split_at_dashes(const std::vector<std::string>& words);

// Once the flags are parsed: takes the words after `--` as the workload's
// options or the program's, then checks everything against `machine`: the
// limits (1 MiB to its RAM unless --force), its CPUs, the durations, the
// name, the neighbours (1 to 64, together at most one charge per ms on the
// workload's CPU), and the workload's options (its --target within the RAM).
Result<void> check_run(RunRequest& request, const std::vector<std::string>& after_dashes,
                       const lab::Machine& machine);

// Both steps on the words that follow `cgmem run`: a flag that `cgmem run`
// would refuse (an unknown one, a malformed duration) is an error too.
Result<RunRequest> check_run_words(const std::vector<std::string>& words, const lab::Machine& machine);

}  // namespace cgmem::cli
