// What a kernel of cgmem's cache was built with, as its build.json beside
// the bzImage says (written by src/kernel/cache.h: "name", "patches",
// "upstream", "version"), and what that allows of `cgmem vm --stock-slots N`.
//
// --stock-slots N appends memcontrol.stock_slots=N to the guest's kernel
// command line. Only a 6.12 kernel built with the memcg-stock-slots patch has
// that parameter; Debian's kernels and a bzImage without a build.json have
// one slot, fixed, and Linux 6.16 and later have 7 (NR_MEMCG_STOCK), fixed.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.h"
#include "model/kernel_rules.h"

namespace cgmem::vm {

inline constexpr std::string_view kSlotsPatch = "memcg-stock-slots";
// NR_MEMCG_STOCK's range (model/kernel_rules.h), as --stock-slots takes it.
inline constexpr int kMinStockSlots = static_cast<int>(model::kMinStockSlots);
inline constexpr int kMaxStockSlots = static_cast<int>(model::kMaxStockSlots);
inline constexpr const char* kBuildSlotsKernel =
    "cgmem kernel build --hz 1000 --patch memory-high-throttle --patch memcg-stock-slots";

struct BuiltKernel {
  bool found = false;                 // a build.json was read
  std::string name;                   // "hz1000-throttle-slots"
  std::vector<std::string> patches;   // applied
  std::vector<std::string> upstream;  // skipped: the source had them
  std::string version;                // "6.12.117", "6.16.3"; empty when not recorded
};

// DIR/build.json for the bzImage DIR/bzImage; found = false when there is
// none or it cannot be read (such a kernel is treated as not cgmem's).
BuiltKernel read_built(const std::string& image);

// True when `version` ("6.16.3", or a release "6.16.3-cgmem-...") is 6.16
// or later: the stock's 7 slots are upstream.
bool slots_upstream(std::string_view version);

// The kernel command line word for --stock-slots N.
std::string stock_slots_arg(int slots);

// Whether --stock-slots `slots` may be given to the kernel `what` (its cache
// name or path; empty: Debian's, which has no build.json), with `built` read
// from beside it and `release` from its header. The error says why not and
// how to build a kernel that has the parameter.
Result<void> check_stock_slots(int slots, const std::string& what, const BuiltKernel& built,
                               const std::string& release);

// The slots the guest will have: `asked` when given, else 7 for 6.16 and
// later, else 1 (the patch's default, and 6.12's one slot); and where that
// number comes from: "--stock-slots", "version" or "default".
struct SlotsInEffect {
  int slots = 1;
  std::string source;
};
SlotsInEffect stock_slots_in_effect(std::optional<int> asked, const BuiltKernel& built, const std::string& release);

}  // namespace cgmem::vm
