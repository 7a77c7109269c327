#include "run_format/run_format.h"

#include <array>
#include <utility>

namespace cgmem::run_format {

namespace {

constexpr std::array<std::pair<Phase, std::string_view>, 3> kPhaseNames{{
    {Phase::grow, "grow"},
    {Phase::churn, "churn"},
    {Phase::own_high, "own_high"},
}};

constexpr std::array<std::pair<Status, std::string_view>, 6> kStatusNames{{
    {Status::oom_killed, "oom_killed"},
    {Status::exited, "exited"},
    {Status::cap, "cap"},
    {Status::interrupted, "interrupted"},
    {Status::failed, "failed"},
    {Status::load_done, "load_done"},
}};

}  // namespace

std::string_view to_string(Phase phase) {
  for (const auto& [value, name] : kPhaseNames)
    if (value == phase) return name;
  return "other";
}

Phase parse_phase(std::string_view text) {
  for (const auto& [value, name] : kPhaseNames)
    if (name == text) return value;
  return Phase::other;
}

std::string_view to_string(Status status) {
  for (const auto& [value, name] : kStatusNames)
    if (value == status) return name;
  return "failed";
}

std::optional<Status> parse_status(std::string_view text) {
  for (const auto& [value, name] : kStatusNames)
    if (name == text) return value;
  return std::nullopt;
}

}  // namespace cgmem::run_format
