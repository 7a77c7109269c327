#include "report/swap_rules.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <set>

namespace cgmem::report {

namespace {

enum class Rule { none, high, max, both };

// The claims whose verdict swap's rules decide.
Rule rule_of(const std::string& id) {
  static const std::set<std::string> high = {"high-throttles", "fit-slow", "sleeps-alone", "sleeps-neighbour",
                                             "growth",         "procs",    "populate"};
  if (high.contains(id)) return Rule::high;
  if (id == "max-kills") return Rule::max;
  if (id == "both-kill-per-page" || id == "both-kill-per-batch") return Rule::both;
  return Rule::none;
}

std::string labels(const std::vector<const KernelFacts*>& kernels) {
  std::vector<std::string> out;
  for (const auto* k : kernels) out.push_back(k->label);
  return fmt::format("{}", fmt::join(out, ", "));
}

std::string high_text(const std::string& swap, const std::string& none) {
  return fmt::format(
      "On {} reclaim can swap anonymous pages out: reclaim_high() reclaims with MEMCG_RECLAIM_MAY_SWAP and "
      "mem_cgroup_handle_over_high() retries instead of sleeping while reclaim frees pages (mm/memcontrol.c, 6.12), "
      "so a task over memory.high is reclaimed rather than put to sleep and the throttle this claim rests on is smaller "
      "or gone{}.",
      swap, none.empty() ? "" : fmt::format("; on {}, without swap, anonymous pages cannot be reclaimed and the task sleeps", none));
}

std::string max_text(const std::string& swap, const std::string& none) {
  return fmt::format(
      "On {} try_charge_memcg() reclaims to swap at memory.max and calls the OOM killer only once reclaim frees "
      "nothing, when memory.swap.max or the swap device is full (mm/memcontrol.c, 6.12), so the kill comes later or "
      "not within the cap, after ops that swap{}.",
      swap, none.empty() ? "" : fmt::format("; on {} nothing is reclaimable and the charge goes to the OOM killer at once", none));
}

std::string rule_text(Rule rule, const std::string& swap, const std::string& none) {
  switch (rule) {
    case Rule::high: return high_text(swap, none);
    case Rule::max: return max_text(swap, none);
    case Rule::both: return high_text(swap, none) + " " + max_text(swap, none);
    case Rule::none: break;
  }
  return "";
}

}  // namespace

std::string swap_why(const std::string& id, const std::vector<std::pair<const KernelFacts*, ClaimVerdict>>& tested) {
  std::vector<const KernelFacts*> none, some;
  std::set<std::string> settings;
  std::map<ClaimVerdict, std::vector<const KernelFacts*>> by_verdict;
  for (const auto& [k, v] : tested) {
    if (!k->swap.setting) continue;
    settings.insert(*k->swap.setting);
    (*k->swap.setting == "none" ? none : some).push_back(k);
    by_verdict[v].push_back(k);
  }
  if (settings.size() < 2) return "";
  // Settings of one kernel differ in swap alone; across kernels the other
  // rules above may decide too, and the text says so.
  const KernelFacts* first = none.empty() ? some.front() : none.front();
  bool swap_alone = std::all_of(tested.begin(), tested.end(), [&](const auto& kv) {
    const KernelFacts* k = kv.first;
    return k->release == first->release && k->hz == first->hz && k->stock_slots == first->stock_slots;
  });
  std::string also = swap_alone ? "" : "These kernels differ in more than swap (release, HZ or stock slots). ";
  std::vector<std::string> verdicts;
  for (const auto& [v, group] : by_verdict) verdicts.push_back(fmt::format("{} on {}", verdict_text(v), labels(group)));
  const Rule rule = rule_of(id);
  if (rule == Rule::none)
    return also + fmt::format("No rule cgmem knows of {} ({}); the figures in each setting's table below tell the runs apart.",
                       none.empty() ? "tells these kinds of swap apart for this claim" : "says how swap moves this claim",
                       fmt::join(verdicts, "; "));
  // The rule: with swap the claim fails, without swap it can hold.
  bool swap_fails = std::all_of(some.begin(), some.end(), [&](const KernelFacts* k) {
    const auto& failed = by_verdict[ClaimVerdict::not_reproduced];
    return std::find(failed.begin(), failed.end(), k) != failed.end();
  });
  bool none_holds = std::any_of(none.begin(), none.end(), [&](const KernelFacts* k) {
    const auto& held = by_verdict[ClaimVerdict::reproduced];
    return std::find(held.begin(), held.end(), k) != held.end();
  });
  std::string text = rule_text(rule, labels(some), labels(none));
  if (swap_fails && none_holds) return also + text;
  return also + fmt::format("The verdicts ({}) are not what swap's rule predicts, which is the claim failing with swap and "
                     "holding without it: {} The runs of each setting's table below are the measurement.",
                     fmt::join(verdicts, "; "), rule_text(rule, labels(some), ""));
}

}  // namespace cgmem::report
