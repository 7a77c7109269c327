// Shared between cmd_model.cpp (penalty, grow) and cmd_model_table.cpp.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "model/penalty.h"

namespace cgmem::cli {

// Options every `cgmem model` subcommand takes.
struct ModelOptions {
  uint32_t hz = 1000;  // the study's kernel; the VM's Debian kernel is 250
  uint32_t shift = 0;
  uint32_t batch = 64;
  bool json = false;
  // --kernel-version X.Y (default: this host's release) and --stock-slots N
  // pick the rules that change with the version (model/kernel_rules.h).
  std::string kernel_version;
  std::optional<uint32_t> stock_slots;
  bool batch_given = false;  // --batch was on the command line (each subcommand has its own)
  model::Kernel kernel() const;
  void add_common(CLI::App& cmd);
};

// The rules the answer used, for JSON: {"version": "6.12", "source":
// "flag"|"host"|"default", "stock_slots": 1, "stock_slots_source":
// "version"|"flag", "charge_batch": 64, "per_page_rule": "...", "rules": [...]}.
nlohmann::json kernel_json(const ModelOptions& o, const model::Kernel& k);

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
