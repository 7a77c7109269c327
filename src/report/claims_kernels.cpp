#include "report/claims_kernels.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <set>

#include "model/kernel_rules.h"
#include "report/claims_view.h"
#include "report/swap_rules.h"
#include "report/swap_setting.h"

namespace cgmem::report {

namespace {

std::string join_labels(const std::vector<const KernelFacts*>& kernels) {
  std::vector<std::string> labels;
  for (const auto* k : kernels) labels.push_back(k->label);
  return fmt::format("{}", fmt::join(labels, ", "));
}

// The claims a rule of the kernel decides: the stock's slots those with a
// neighbour on the CPU, HZ the timer wheel's.
bool stock_decides(const std::string& id) { return id == "sleeps-neighbour" || id == "both-kill-per-page"; }
bool hz_decides(const std::string& id) { return id == "sleep-length" || id == "cap"; }

// The per-CPU charge stock of each group of kernels with one slot count.
std::string stock_why(const std::vector<const KernelFacts*>& kernels) {
  std::map<int, std::vector<const KernelFacts*>> by_slots;
  for (const auto* k : kernels) by_slots[k->stock_slots].push_back(k);
  if (by_slots.size() < 2) return "";
  std::vector<std::string> parts;
  for (const auto& [slots, group] : by_slots) {
    if (slots == 1) {
      parts.push_back(fmt::format(
          "On {} the per-CPU charge stock holds one memcg (mm/memcontrol.c: refill_stock() calls drain_stock() when "
          "the CPU's cached memcg is another one): one neighbour charging on the same CPU drains the workload's "
          "stock, so the throttled task sleeps once per 4 KiB page.",
          join_labels(group)));
    } else {
      parts.push_back(fmt::format(
          "On {} it holds {} (6.16's \"memcg: multi-memcg percpu charge cache\", or cgmem's patched 6.12 at "
          "memcontrol.stock_slots={}): a neighbour takes a slot of its own and the workload's stays, one sleep per "
          "64-page batch; {} cgroups charging on the CPU fill the slots and each new one drains another's "
          "(drain_stock() on one slot: at random in 6.16, in turn since mainline c0cafe24d3f6 and in cgmem's patch), "
          "so the sleeps come once per page again.",
          join_labels(group), slots, slots, slots + 1));
    }
  }
  return fmt::format("{}", fmt::join(parts, " "));
}

std::string hz_why(const std::vector<const KernelFacts*>& kernels) {
  std::map<int, std::vector<const KernelFacts*>> by_hz;
  for (const auto* k : kernels)
    if (k->hz > 0) by_hz[k->hz].push_back(k);
  if (by_hz.size() < 2) return "";
  std::vector<std::string> parts;
  for (const auto& [hz, group] : by_hz) parts.push_back(fmt::format("{} at HZ={}", join_labels(group), hz));
  return fmt::format("{}: the timer wheel's steps in ms differ, so each sleep overshoots the formula by another "
                     "step (sleep-length and cap judge each run at its own HZ).",
                     fmt::join(parts, ", "));
}

}  // namespace

std::string kernel_title(const KernelFacts& k) {
  std::string swap = swap_text(k.swap);
  return swap.empty() ? k.label : fmt::format("{} ({})", k.label, swap);
}

int stock_slots_of_release(const std::string& release) {
  return static_cast<int>(model::version_stock_slots(release).value_or(model::kMinStockSlots));
}

std::vector<KernelFacts> kernels_of(const std::vector<Run>& runs) {
  std::vector<KernelFacts> out;
  for (const auto& r : runs) {
    if (r.kernel.empty()) continue;
    auto it = std::find_if(out.begin(), out.end(), [&](const KernelFacts& k) { return k.label == r.kernel; });
    if (it != out.end()) continue;
    out.push_back({.label = r.kernel, .release = r.meta.kernel, .hz = r.meta.hz,
                   .stock_slots = r.stock_slots.value_or(stock_slots_of_release(r.meta.kernel)), .swap = r.meta.swap});
  }
  if (out.size() < 2) out.clear();
  return out;
}

std::vector<KernelClaims> check_claims_by_kernel(const std::vector<Run>& runs, const std::vector<RunSummary>& sums,
                                                 const std::vector<RunPrediction>& preds, const RunTraces* traces) {
  std::vector<KernelClaims> out;
  for (const auto& k : kernels_of(runs))
    out.push_back({.kernel = k, .claims = check_claims(runs, sums, preds, &k.label, traces)});
  return out;
}

std::vector<KernelDifference> kernel_differences(const std::vector<KernelClaims>& by_kernel) {
  std::vector<KernelDifference> out;
  if (by_kernel.empty()) return out;
  for (size_t i = 0; i < by_kernel.front().claims.size(); ++i) {
    KernelDifference d{.id = by_kernel.front().claims[i].id, .claim = by_kernel.front().claims[i].claim};
    std::set<ClaimVerdict> tested;
    std::vector<const KernelFacts*> kernels;
    std::vector<std::pair<const KernelFacts*, ClaimVerdict>> verdicts;
    std::map<int, std::map<ClaimVerdict, std::vector<const KernelFacts*>>> by_slots;  // slots -> verdict -> kernels
    for (const auto& k : by_kernel) {
      ClaimVerdict v = k.claims[i].verdict;
      d.verdicts.emplace_back(k.kernel.label, v);
      if (v == ClaimVerdict::not_tested) continue;
      tested.insert(v);
      kernels.push_back(&k.kernel);
      verdicts.emplace_back(&k.kernel, v);
      by_slots[k.kernel.stock_slots][v].push_back(&k.kernel);
    }
    if (tested.size() < 2) continue;
    std::vector<std::string> why;
    if (stock_decides(d.id)) {
      if (auto s = stock_why(kernels); !s.empty()) why.push_back(s);
      // Kernels of one slot count that still disagree: the stock's rule does
      // not explain it (Debian's 6.1 beside one neighbour, docs/kernel.md).
      for (const auto& [slots, verdicts] : by_slots) {
        if (verdicts.size() < 2) continue;
        std::vector<std::string> parts;
        for (const auto& [v, group] : verdicts) parts.push_back(fmt::format("{} on {}", verdict_text(v), join_labels(group)));
        why.push_back(fmt::format("With {} stock slot{} on each, the kernels still differ ({}): not what the stock's "
                                  "rule predicts; the runs of each kernel's table below are the measurement "
                                  "(docs/kernel.md, \"Rules by kernel version\").",
                                  slots, slots == 1 ? "" : "s", fmt::join(parts, "; ")));
      }
    }
    if (hz_decides(d.id))
      if (auto h = hz_why(kernels); !h.empty()) why.push_back(h);
    if (auto s = swap_why(d.id, verdicts); !s.empty()) why.push_back(s);
    if (why.empty())
      why.push_back("No rule cgmem knows of differs for this claim between these kernels (docs/kernel.md, \"Rules by "
                    "kernel version\"); the figures in each kernel's table below tell the runs apart.");
    d.why = fmt::format("{}", fmt::join(why, " "));
    out.push_back(std::move(d));
  }
  return out;
}

std::vector<Section> kernel_claims_sections(const std::vector<KernelClaims>& by_kernel) {
  std::vector<Section> out;
  Section side{.title = "The study's claims, checked, by kernel"};
  std::vector<std::string> kernels;
  for (const auto& k : by_kernel)
    kernels.push_back(fmt::format("{} ({}, HZ={}, {} stock slot{} per CPU{})", k.kernel.label,
                                  k.kernel.release.empty() ? "release unknown" : k.kernel.release, k.kernel.hz,
                                  k.kernel.stock_slots, k.kernel.stock_slots == 1 ? "" : "s",
                                  k.kernel.swap.setting ? ", " + swap_text(k.kernel.swap) : ""));
  side.paragraphs.push_back(fmt::format(
      "Each claim of the study \"memory.high vs memory.max, measured\" checked on each kernel's runs alone: {}. "
      "Each kernel's figures and notes follow in a table of its own.",
      fmt::join(kernels, "; ")));
  Table t{.head = {"claim", "the study"}, .prose = true};
  for (const auto& k : by_kernel) t.head.push_back(kernel_title(k.kernel));
  for (size_t i = 0; i < by_kernel.front().claims.size(); ++i) {
    const Claim& c = by_kernel.front().claims[i];
    std::vector<std::string> row = {c.claim, c.study};
    for (const auto& k : by_kernel) row.push_back(verdict_text(k.claims[i].verdict));
    t.rows.push_back(std::move(row));
  }
  side.tables.push_back(std::move(t));
  out.push_back(std::move(side));

  Section differs{.title = "What differs by kernel"};
  auto diffs = kernel_differences(by_kernel);
  if (diffs.empty())
    differs.paragraphs.push_back("No claim that two kernels tested has a different verdict on them.");
  for (const auto& d : diffs) {
    std::vector<std::string> verdicts;
    for (const auto& [label, v] : d.verdicts) verdicts.push_back(fmt::format("{} on {}", verdict_text(v), label));
    differs.paragraphs.push_back(fmt::format("{} ({}): {}. {}", d.claim, d.id, fmt::join(verdicts, ", "), d.why));
  }
  out.push_back(std::move(differs));

  for (const auto& k : by_kernel) {
    Section s = claims_section(k.claims);
    s.title = "On kernel " + kernel_title(k.kernel);
    out.push_back(std::move(s));
  }
  return out;
}

nlohmann::json kernel_claims_json(const std::vector<KernelClaims>& by_kernel) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& k : by_kernel)
    for (auto row : claims_json(k.claims)) {
      row["kernel"] = k.kernel.label;
      out.push_back(std::move(row));
    }
  return out;
}

nlohmann::json kernel_differences_json(const std::vector<KernelClaims>& by_kernel) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& d : kernel_differences(by_kernel)) {
    nlohmann::json verdicts = nlohmann::json::object();
    for (const auto& [label, v] : d.verdicts) verdicts[label] = verdict_text(v);
    out.push_back({{"id", d.id}, {"claim", d.claim}, {"verdicts", verdicts}, {"why", d.why}});
  }
  return out;
}

nlohmann::json kernels_json(const std::vector<KernelFacts>& kernels) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& k : kernels)
    out.push_back({{"label", k.label}, {"release", k.release}, {"hz", k.hz}, {"stock_slots", k.stock_slots},
                   {"swap", swap_json(k.swap)}});
  return out;
}

}  // namespace cgmem::report
