#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <fmt/format.h>

#include "managers/slurm.h"

namespace cgmem::managers {
namespace {

constexpr const char* kTask =
    "SchedMD/slurm src/plugins/task/cgroup/task_cgroup_memory.c task_cgroup_memory_init(), _memcg_initialize()";
constexpr const char* kV2 = "SchedMD/slurm src/plugins/cgroup/v2/cgroup_v2.c cgroup_p_constrain_set()";

// percent_in_bytes(): (mb * 1024 * 1024) * (percent / 100.0), truncated.
// Slurm does this in uint64_t and would wrap; cgmem refuses (checked_mb()).
uint64_t percent_in_bytes(uint64_t mb, float percent) {
  return static_cast<uint64_t>(static_cast<double>(mb * 1024 * 1024) * (percent / 100.0));
}

struct Bounds {
  uint64_t total_mb, min_ram, max_ram, max_swap;
};

// task_cgroup_memory_init(): without ConstrainRAMSpace, AllowedRAMSpace is
// taken as 100 for every limit derived from it.
float allowed_ram(const SlurmConf& c) { return c.constrain_ram ? c.allowed_ram : 100.0f; }

uint64_t mem_limit_in_bytes(uint64_t mem, bool with_allowed, const SlurmConf& c, const Bounds& b) {
  uint64_t bytes = mem == 0 ? b.total_mb * 1024 * 1024
                            : percent_in_bytes(mem, with_allowed ? allowed_ram(c) : 100.0f);
  if (bytes < b.min_ram) return b.min_ram;  // MinRAMSpace first, as Slurm checks it
  if (bytes > b.max_ram) return b.max_ram;
  return bytes;
}

uint64_t swap_limit_in_bytes(uint64_t mem, const SlurmConf& c, const Bounds& b) {
  uint64_t swap = percent_in_bytes(mem ? mem : b.total_mb, c.allowed_swap);
  uint64_t total = mem_limit_in_bytes(mem, true, c, b) + swap;
  if (total < b.min_ram) return b.min_ram;
  return std::min(total, b.max_swap);
}

// Megabytes whose byte count, scaled by the largest percentage in play,
// stays below 2^63: Slurm's uint64_t arithmetic would wrap above that.
Result<void> checked_mb(uint64_t mb, const char* what, double percent) {
  const double bytes = static_cast<double>(mb) * 1048576.0 * std::max(1.0, percent / 100.0);
  if (mb > (UINT64_MAX >> 20) || bytes >= 9.2e18)
    return fail(fmt::format("{} {} MB: the byte count overflows Slurm's 64-bit arithmetic", what, mb), {},
                "give a size below 8 EiB");
  return {};
}

bool yes(std::string_view v) {
  std::string s(v);
  for (auto& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return s == "yes" || s == "true" || s == "1";
}

}  // namespace

Result<uint64_t> parse_slurm_mem(std::string_view text) {
  // str_to_mbytes() (src/common/proc_args.c): strtoll(), MB by default, K
  // (rounded up to MB), M, G or T (base 1024), each optionally followed by
  // B; negative or unparsable: NO_VAL.
  auto bad = [&] {
    return fail(fmt::format("--mem {}: not a Slurm memory size", text), {},
                "MB by default, or a K, M, G or T suffix (optionally with B), e.g. --mem 4G");
  };
  std::string_view s = text;
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  if (s.size() > 1 && s[0] == '+' && std::isdigit(static_cast<unsigned char>(s[1]))) s.remove_prefix(1);
  int64_t n = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
  if (ec == std::errc::result_out_of_range)
    return fail(fmt::format("--mem {}: larger than Slurm's 64-bit count of MB", text));
  if (ec != std::errc() || p == s.data() || n < 0) return bad();
  std::string_view unit(p, static_cast<size_t>(s.data() + s.size() - p));
  if (unit.size() == 2 && (unit[1] == 'B' || unit[1] == 'b')) unit.remove_suffix(1);
  if (unit.size() > 1) return bad();
  const auto mb = static_cast<uint64_t>(n);
  uint64_t factor = 1;
  switch (unit.empty() ? 'M' : std::toupper(static_cast<unsigned char>(unit[0]))) {
    case 'K': return (mb + 1023) / 1024;
    case 'M': break;
    case 'G': factor = 1024; break;
    case 'T': factor = 1024 * 1024; break;
    default: return bad();
  }
  if (mb > static_cast<uint64_t>(INT64_MAX) / factor)
    return fail(fmt::format("--mem {}: larger than Slurm's 64-bit count of MB", text));
  return mb * factor;
}

Result<void> apply_slurm_conf(std::string_view text, SlurmConf& c) {
  size_t pos = 0;
  int line_no = 0;
  while (pos <= text.size()) {
    size_t end = std::min(text.find('\n', pos), text.size());
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1, ++line_no;
    line = line.substr(0, line.find('#'));
    while (!line.empty() && std::isspace(static_cast<unsigned char>(line.back()))) line.remove_suffix(1);
    while (!line.empty() && std::isspace(static_cast<unsigned char>(line.front()))) line.remove_prefix(1);
    if (line.empty()) continue;
    auto eq = line.find('=');
    if (eq == std::string_view::npos)
      return fail(fmt::format("cgroup.conf line {}: '{}' is not Key=Value", line_no, line));
    std::string key(line.substr(0, eq));
    std::string_view value = line.substr(eq + 1);
    for (auto& ch : key) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    auto number = [&](float& out) -> Result<void> {
      auto [p, ec] = std::from_chars(value.data(), value.data() + value.size(), out);
      // from_chars takes "inf" and "nan", which are no size or percentage
      if (ec != std::errc() || p != value.data() + value.size() || !std::isfinite(out) || out < 0)
        return fail(fmt::format("cgroup.conf: {}: not a number", line));
      return {};
    };
    Result<void> r;
    if (key == "constrainramspace") c.constrain_ram = yes(value);
    else if (key == "constrainswapspace") c.constrain_swap = yes(value);
    else if (key == "allowedramspace") r = number(c.allowed_ram);
    else if (key == "allowedswapspace") r = number(c.allowed_swap);
    else if (key == "maxrampercent") r = number(c.max_ram_percent);
    else if (key == "maxswappercent") r = number(c.max_swap_percent);
    else if (key == "minramspace") {
      float mb = 0;
      r = number(mb);
      // Megabytes; more than 2^44 MB (16 EiB) is no memory size
      if (r && mb >= 0x1p44f) r = fail(fmt::format("cgroup.conf: {}: larger than any memory", line));
      if (r) c.min_ram_mb = static_cast<uint64_t>(mb);
    }
    if (!r) return r;
  }
  return {};
}

Result<Translation> translate_slurm(const SlurmInput& in, uint64_t page_size) {
  const SlurmConf& c = in.conf;
  Translation out{.manager = "slurm"};
  if (!c.constrain_ram && !c.constrain_swap) {
    out.notes.push_back("ConstrainRAMSpace=no and ConstrainSwapSpace=no: the task/cgroup plugin "
                        "writes no memory limit");
    for (const char* f : {"memory.max", "memory.high"})
      add(out, {.scope = "job", .file = f, .set = false, .rule = "not constrained", .source = kTask});
    return out;
  }
  if (in.real_memory_mb == 0)
    return fail("Slurm's limits are shares of the node's RealMemory", {}, "give --real-memory MB");
  const double most = std::max({static_cast<double>(allowed_ram(c)) + c.allowed_swap,
                                static_cast<double>(c.max_ram_percent) + c.max_swap_percent, 100.0});
  for (auto [mb, what] : {std::pair{in.job_mb, "--mem"}, std::pair{in.real_memory_mb, "--real-memory"},
                          std::pair{c.min_ram_mb, "MinRAMSpace"}})
    if (auto r = checked_mb(mb, what, most); !r) return std::unexpected(r.error());
  Bounds b{.total_mb = in.real_memory_mb, .min_ram = c.min_ram_mb * 1024 * 1024,
           .max_ram = percent_in_bytes(in.real_memory_mb, c.max_ram_percent), .max_swap = 0};
  b.max_swap = percent_in_bytes(in.real_memory_mb, c.max_swap_percent) + b.max_ram;
  uint64_t mlb = mem_limit_in_bytes(in.job_mb, true, c, b);
  uint64_t soft = std::min(mem_limit_in_bytes(in.job_mb, false, c, b), mlb);
  uint64_t mls = swap_limit_in_bytes(in.job_mb, c, b);
  std::string job = in.job_mb ? fmt::format("--mem {} MB", in.job_mb)
                              : fmt::format("no --mem: RealMemory {} MB", in.real_memory_mb);
  if (!c.constrain_ram) mlb = mls;
  auto value = [&](Assignment& a, uint64_t v) { with_value(a, Limit::of(v), page_size); };
  value(add(out, {.scope = "job", .file = "memory.max",
            .rule = c.constrain_ram
                        ? fmt::format("{} x AllowedRAMSpace {}% within [MinRAMSpace {} MB, MaxRAMPercent "
                                      "{}%] = {}",
                                      job, allowed_ram(c), c.min_ram_mb, c.max_ram_percent, mlb)
                        : fmt::format("ConstrainRAMSpace=no: the memory+swap limit {}", mlb),
            .source = std::string(kTask) + "; " + kV2}), mlb);
  value(add(out, {.scope = "job", .file = "memory.high",
            .rule = fmt::format("{} at 100%, at most memory.max: {}", job, soft),
            .source = std::string(kTask) + "; " + kV2}), soft);
  if (c.constrain_swap)
    value(add(out, {.scope = "job", .file = "memory.swap.max",
              .rule = fmt::format("memory+swap {} (AllowedRAMSpace {}%{}, AllowedSwapSpace {}%) - memory.max {}",
                                  mls, allowed_ram(c), c.constrain_ram ? "" : " without ConstrainRAMSpace",
                                  c.allowed_swap, mlb),
              .source = std::string(kTask) + "; " + kV2}), mls - mlb);
  if (soft < mlb)
    out.notes.push_back("memory.high is below memory.max: the job is throttled between its "
                        "request and AllowedRAMSpace before the OOM kill");
  out.notes.push_back("the step cgroups get the same rules from the step's memory");
  return out;
}

}  // namespace cgmem::managers
