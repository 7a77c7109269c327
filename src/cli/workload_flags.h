// The flags of `cgmem workload`, shared with `cgmem run`, which parses the
// words after `--` with them to check them before it creates anything and to
// record them in meta.json.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "common/error.h"
#include "lab/workload_options.h"

namespace cgmem::cli {

void add_workload_flags(CLI::App& app, lab::WorkloadOptions& options);

// Parses and validates workload words (as given after `--`) for a machine
// with this page size and RAM (0: not checked); by default, this one.
Result<lab::WorkloadOptions> parse_workload_words(const std::vector<std::string>& words,
                                                  uint64_t page_size = lab::page_size_here(),
                                                  uint64_t ram_bytes = lab::ram_here());

}  // namespace cgmem::cli
