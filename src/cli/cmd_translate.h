// Shared by cmd_translate.cpp (flags, managers) and cmd_translate_output.cpp
// (table, JSON, verdict).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "managers/assignment.h"

namespace cgmem::cli {

struct TranslateOutput {
  bool json = false;
  bool sources = false;                  // print each rule's source in the table
  std::optional<uint64_t> working_set;   // --working-set
  std::optional<double> alloc_rate;      // --alloc-rate, bytes/s
  uint32_t hz = 1000;                    // --hz (cgmem model's default, the study's kernel)
  uint64_t page_size = 4096;
};

// Prints the translation (and the verdict when a working set is given).
void print_translation(const managers::Translation& t, const TranslateOutput& o);

}  // namespace cgmem::cli
