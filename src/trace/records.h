// The events cgmem traces and how each becomes a line of trace.jsonl
// (docs/run-format.md): the memcg events of cgmem's memcg-trace patch and
// two of the scheduler's. Every field is read by name through the event's
// format (format.h); the line's keys are cgmem's, the same on every kernel.
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.h"
#include "run_format/run_format.h"
#include "trace/format.h"

namespace cgmem::trace {

enum class Kind { stock_drain, stock_drain_all, high_penalty, high_sleep, sched_waking, sched_switch };

struct EventName {
  Kind kind;
  std::string_view system, name;  // tracefs events/SYSTEM/NAME
  std::string_view line;          // trace.jsonl "event"
};

// The six, memcg's first (a kernel without them is not cgmem's own).
inline constexpr EventName kEvents[] = {
    {Kind::stock_drain, "memcg", "memcg_stock_drain", run_format::trace_key::kStockDrain},
    {Kind::stock_drain_all, "memcg", "memcg_stock_drain_all", run_format::trace_key::kStockDrainAll},
    {Kind::high_penalty, "memcg", "memcg_high_penalty", run_format::trace_key::kHighPenalty},
    {Kind::high_sleep, "memcg", "memcg_high_sleep", run_format::trace_key::kHighSleep},
    {Kind::sched_waking, "sched", "sched_waking", run_format::trace_key::kSchedWaking},
    {Kind::sched_switch, "sched", "sched_switch", run_format::trace_key::kSchedSwitch},
};

struct Decoded {
  Kind kind;
  int pid = 0;                 // the task running when it fired (common_pid)
  nlohmann::ordered_json fields;  // the line's event keys, in order
};

// Names a kernel address: "try_charge_memcg", or "0x..." when unknown.
using SymbolName = std::function<std::string(uint64_t address)>;

class Decoder {
 public:
  // How a field becomes a value of the line.
  enum class Type { unsigned_int, signed_int, text, flag, cause, caller };

  // From each event's format; an error names the event and the field its
  // format lacks (a kernel whose events differ from the patch's).
  static Result<Decoder> create(const std::vector<std::pair<Kind, EventFormat>>& formats);

  // One record of the ring buffer; nullopt for an event of another id or a
  // record shorter than its format says.
  std::optional<Decoded> decode(std::span<const uint8_t> data, const SymbolName& symbol) const;

 private:
  struct Column {
    std::string_view key;
    Type type;
    Field layout;
  };
  struct Event {
    Kind kind;
    uint32_t id;
    std::vector<Column> columns;
  };
  Decoder() = default;
  std::vector<Event> events_;
  Field common_type_, common_pid_;
};

}  // namespace cgmem::trace
