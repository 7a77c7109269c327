// Shared between cmd_model.cpp (penalty, grow) and cmd_model_table.cpp.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>

#include "model/penalty.h"

namespace cgmem::cli {

// Options every `cgmem model` subcommand takes.
struct ModelOptions {
  uint32_t hz = 1000;  // the study's kernel; the VM's Debian kernel is 250
  uint32_t shift = 0;
  uint32_t batch = 64;
  bool json = false;
  model::Kernel kernel() const;
  void add_common(CLI::App& cmd);
};

struct TableArgs {
  std::string high, max, from;
  uint32_t procs = 1;
  uint32_t rows = 16;
  uint32_t max_shift = 15;
};

// A size option's value (already validated by size_validator({})).
uint64_t bytes_of(const std::string& text);

void add_table(CLI::App& app, ModelOptions& o, TableArgs& a);
int run_table(const ModelOptions& o, const TableArgs& a);

}  // namespace cgmem::cli
