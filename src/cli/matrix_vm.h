// `cgmem matrix` in the VM: the same command, run by `cgmem vm` with the spec
// and the claim copied in, the batch coming back as --out.
#pragma once

#include <optional>
#include <string>

#include "matrix/plan.h"
#include "matrix/spec.h"

namespace cgmem::cli {

struct MatrixFlags {
  std::string spec, out, claim, from;
  bool resume = false, vm = false, native = false, json = false, progress_lines = false;
  bool plan = false;  // --plan: check every run as `cgmem run` would, run nothing
  bool trace = false;  // --trace: every run with `cgmem run --trace`, over the spec's trace keys
  std::optional<int> reps;
  std::string order;
  std::optional<uint64_t> seed;
  std::string vm_mem = "1G";
  std::string vm_swap = "0";  // zram swap in the guest, for specs that set swap_max
  std::string kernel;  // --kernel: the VM's kernel, over the spec's `kernel` and [[kernels]]
  std::string kernel_label;  // --kernel-label (inside the VM): run this kernel's runs of the spec
  std::string shard_text;    // --shard K/N, as given
  matrix::Shard shard;       // and parsed
  std::string built;         // --built DIR (inside the VM): the workloads' builds are there; do not build
};

// The `cgmem vm` arguments that run this matrix in the guest. `vm_out` is
// where the guest's working directory (the batch) comes back; `resume_from`
// names the host batch copied in to be finished, or is empty. `kernel` is
// the session's kernel (nullptr: the spec's only one, if any): `--kernel
// NAME`, `--stock-slots N` when set, and `--kernel-label LABEL` inside.
std::vector<std::string> vm_arguments(const MatrixFlags& f, const matrix::MatrixSpec& spec, const std::string& vm_out,
                                      const std::string& resume_from, unsigned timeout_s,
                                      const matrix::KernelSpec* kernel = nullptr);

// One VM session per kernel of the spec (matrix/kernels.h); one session
// into --out itself for a spec of one kernel or none.
int run_matrix_in_vm(const MatrixFlags& f, const matrix::MatrixSpec& spec);

}  // namespace cgmem::cli
