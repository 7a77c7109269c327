// `cgmem matrix --plan`: the batch's runs, each checked as `cgmem run` will
// check it on the machine the batch would run on, and nothing run.
#pragma once

#include <string>
#include <vector>

#include "cli/matrix_vm.h"
#include "matrix/spec.h"
#include "lab/run_options.h"

namespace cgmem::cli {

// Where the batch would run and what the runs' checks are made against.
struct PlanTarget {
  bool vm = false;
  std::string why;           // why there: "--vm", "the spec's kernel", no controller here, ...
  lab::Machine machine;      // this host's, or the guest's as `cgmem vm` would boot it
  std::string machine_text;  // the machine in words, for the header line
  std::string kernel;        // the VM's kernel, when one is named
  std::vector<std::string> notes;
};

// This host, as `cgmem run` probes it.
PlanTarget host_target(std::string why);

// The guest `cgmem matrix` boots: the VM's CPUs, the RAM its kernel leaves of
// --vm-mem (vm::guest_mem_total), its kernel (an unbuilt one is a note).
PlanTarget guest_target(const MatrixFlags& f, const matrix::MatrixSpec& spec, std::string why);

// Prints the plan (one line per run: the `cgmem run` it would start, or why
// `cgmem run` would refuse it; --json: one object) and returns kOk, or
// kUsage when `cgmem run` would refuse any run.
int print_plan(const MatrixFlags& f, const matrix::MatrixSpec& spec, const PlanTarget& target);

}  // namespace cgmem::cli
