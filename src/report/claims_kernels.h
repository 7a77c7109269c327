// The claims of a batch on several kernels ([[kernels]], docs/matrix.md):
// each claim checked on each kernel's runs alone, a verdict column per
// kernel, and for each claim whose verdict differs between kernels, why,
// from the kernels' own code (docs/report.md, "What differs by kernel").
//
// The per-CPU charge stock decides the neighbour claim. 6.1's and 6.12's
// mm/memcontrol.c keep one memcg per CPU: refill_stock() calls
// drain_stock() whenever the CPU's cached memcg is another one, so one
// neighbour charging on the same CPU empties the workload's stock and the
// throttled task sleeps once per page. 6.16 ("memcg: multi-memcg percpu
// charge cache") keeps 7 (NR_MEMCG_STOCK), as does cgmem's patched 6.12 at
// memcontrol.stock_slots=7: a neighbour takes a slot of its own, and only
// an eighth cgroup charging on the CPU drains one (a random slot).
//
// A batch of several swap settings is a batch of several kernels too (one
// [[kernels]] entry per setting, docs/matrix.md), so each setting gets its
// column; the heads name each one's swap (meta.json host.swap_setting), and
// a verdict that differs between settings is explained by swap's rules in
// mm/memcontrol.c where they decide the claim (claims_swap.cpp has them).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "report/claims.h"
#include "report/document.h"
#include "report/run.h"

namespace cgmem::report {

struct KernelFacts {
  std::string label;
  std::string release;  // the runs' kernel release (meta.json)
  int hz = 0;
  int stock_slots = 1;  // batch.json's, else by release: 7 from 6.16 on, 1 before
  // The runs' swap setting (kind, size, zswap's compressor and pool,
  // swappiness: meta.json host); its setting is empty in runs recorded
  // before cgmem wrote it.
  HostSwap swap;
};

// "disk (disk swap 512MiB, swappiness 60)", or the label alone when the
// runs did not record their swap setting: the column heads and headings.
std::string kernel_title(const KernelFacts& k);

struct KernelClaims {
  KernelFacts kernel;
  std::vector<Claim> claims;
};

// The kernels of the runs in the order they first appear; empty when the
// runs carry fewer than two (Run::kernel).
std::vector<KernelFacts> kernels_of(const std::vector<Run>& runs);

// Memcg charge stock slots per CPU of a kernel release ("6.16.3-..."): 7
// from 6.16 on, else 1.
int stock_slots_of_release(const std::string& release);

std::vector<KernelClaims> check_claims_by_kernel(const std::vector<Run>& runs, const std::vector<RunSummary>& sums,
                                                 const std::vector<RunPrediction>& preds,
                                                 const RunTraces* traces = nullptr);

// For each claim whose verdict (reproduced, not reproduced) differs between
// the kernels that tested it: the verdicts and why, or empty.
struct KernelDifference {
  std::string id, claim;
  std::vector<std::pair<std::string, ClaimVerdict>> verdicts;  // kernel label -> verdict, every kernel
  std::string why;
};
std::vector<KernelDifference> kernel_differences(const std::vector<KernelClaims>& by_kernel);

// claims.md of such a batch: the verdicts side by side, "What differs by
// kernel", then each kernel's own table.
std::vector<Section> kernel_claims_sections(const std::vector<KernelClaims>& by_kernel);
// report.json: `claims` (a row per claim and kernel, with "kernel") and
// `kernel_differences`.
nlohmann::json kernel_claims_json(const std::vector<KernelClaims>& by_kernel);
nlohmann::json kernel_differences_json(const std::vector<KernelClaims>& by_kernel);
// report.json `kernels`: label, release, hz, stock_slots and swap (swap_setting.h) of each.
nlohmann::json kernels_json(const std::vector<KernelFacts>& kernels);

}  // namespace cgmem::report
