#include "trace/records.h"

#include <fmt/format.h>

#include "common/text.h"
#include "run_format/run_format.h"

namespace cgmem::trace {

namespace {

using Type = Decoder::Type;
namespace key = run_format::trace_key;

using ColumnSpec = std::tuple<std::string_view, std::string_view, Type>;  // key, field, type

std::vector<ColumnSpec> columns_of(Kind kind) {
  using enum Type;
  switch (kind) {
    case Kind::stock_drain:
      return {{key::kStockCpu, "cpu", signed_int}, {key::kCgroupId, "id", unsigned_int},
              {key::kNrPages, "nr_pages", unsigned_int}, {key::kCause, "cause", Type::cause},
              {key::kByCgroupId, "by_id", unsigned_int}, {key::kComm, "comm", text}};
    case Kind::stock_drain_all:
      return {{key::kCgroupId, "id", unsigned_int}, {key::kCaller, "caller", Type::caller}, {key::kComm, "comm", text}};
    case Kind::high_penalty:
      return {{key::kCgroupId, "id", unsigned_int},        {key::kComm, "comm", text},
              {key::kNrPages, "nr_pages", unsigned_int},   {key::kUsagePages, "usage", unsigned_int},
              {key::kHighPages, "high", unsigned_int},     {key::kSwapUsagePages, "swap_usage", unsigned_int},
              {key::kSwapHighPages, "swap_high", unsigned_int}, {key::kPasses, "passes", unsigned_int},
              {key::kReclaimedPages, "reclaimed", unsigned_int}, {key::kReclaimNs, "reclaim_ns", unsigned_int},
              {key::kSummedJiffies, "summed", unsigned_int}, {key::kShift, "shift", signed_int},
              {key::kShiftedJiffies, "shifted", unsigned_int}, {key::kPenaltyJiffies, "penalty", unsigned_int},
              {key::kSleeps, "sleeps", flag}};
    case Kind::high_sleep:
      return {{key::kCgroupId, "id", unsigned_int}, {key::kPenaltyJiffies, "penalty", unsigned_int},
              {key::kPlannedNs, "planned_ns", unsigned_int}, {key::kSleptNs, "slept_ns", unsigned_int},
              {key::kLeftJiffies, "left", signed_int}};
    case Kind::sched_waking:
      return {{key::kTargetPid, "pid", signed_int}, {key::kTargetComm, "comm", text},
              {key::kTargetCpu, "target_cpu", signed_int}};
    case Kind::sched_switch:
      return {{key::kPrevPid, "prev_pid", signed_int}, {key::kPrevState, "prev_state", signed_int},
              {key::kNextPid, "next_pid", signed_int}};
  }
  return {};
}

// Fields a kernel built from an earlier memcg-trace patch lacks: their key
// is left out of its lines.
bool optional_field(std::string_view field) { return field == "swap_usage" || field == "swap_high"; }

// The memcg-trace patch's enum memcg_drain_cause.
std::string_view cause_name(int64_t cause) {
  switch (cause) {
    case 0: return "refill";
    case 1: return "over_batch";
    case 2: return "drain_all";
    case 3: return "hotplug";
    default: return "unknown";
  }
}

std::string_view event_name(Kind kind) {
  for (const auto& e : kEvents)
    if (e.kind == kind) return e.name;
  return "?";
}

}  // namespace

Result<Decoder> Decoder::create(const std::vector<std::pair<Kind, EventFormat>>& formats) {
  Decoder decoder;
  bool common = false;
  for (const auto& [kind, format] : formats) {
    auto missing = [&](std::string_view field) {
      return fail(fmt::format("the trace event {} has no field '{}'", event_name(kind), field), {},
                  "boot a kernel built with cgmem's memcg-trace patch (docs/kernel.md)");
    };
    if (!format.id) return fail(fmt::format("the trace event {} has no ID in its format", event_name(kind)));
    if (!common) {
      const Field* type = format.field("common_type");
      const Field* pid = format.field("common_pid");
      if (!type) return missing("common_type");
      if (!pid) return missing("common_pid");
      decoder.common_type_ = *type, decoder.common_pid_ = *pid, common = true;
    }
    Event event{.kind = kind, .id = *format.id, .columns = {}};
    for (const auto& [key, name, type] : columns_of(kind)) {
      const Field* field = format.field(name);
      if (!field && optional_field(name)) continue;
      if (!field) return missing(name);
      event.columns.push_back({.key = key, .type = type, .layout = *field});
    }
    decoder.events_.push_back(std::move(event));
  }
  return decoder;
}

std::optional<Decoded> Decoder::decode(std::span<const uint8_t> data, const SymbolName& symbol) const {
  auto id = read_unsigned(common_type_, data);
  auto pid = read_signed(common_pid_, data);
  if (!id || !pid) return std::nullopt;
  for (const auto& event : events_) {
    if (event.id != *id) continue;
    Decoded out{.kind = event.kind, .pid = static_cast<int>(*pid), .fields = nlohmann::ordered_json::object()};
    for (const auto& column : event.columns) {
      const Field& f = column.layout;
      switch (column.type) {
        case Type::unsigned_int:
        case Type::caller: {
          auto v = read_unsigned(f, data);
          if (!v) return std::nullopt;
          if (column.type == Type::caller)
            out.fields[column.key] = symbol ? symbol(*v) : fmt::format("{:#x}", *v);
          else
            out.fields[column.key] = *v;
          break;
        }
        case Type::signed_int:
        case Type::flag:
        case Type::cause: {
          auto v = read_signed(f, data);
          if (!v) return std::nullopt;
          if (column.type == Type::flag) out.fields[column.key] = *v != 0;
          else if (column.type == Type::cause) out.fields[column.key] = cause_name(*v);
          else out.fields[column.key] = *v;
          break;
        }
        case Type::text: {
          auto v = read_chars(f, data);
          if (!v) return std::nullopt;
          out.fields[column.key] = visible(*v);
          break;
        }
      }
    }
    return out;
  }
  return std::nullopt;
}

}  // namespace cgmem::trace
