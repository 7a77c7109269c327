// The machine facts of the host probe; the cgroup part is in cgroups.cpp.
#include "host/probe.h"

#include <unistd.h>
#include <zlib.h>

#include "host/cgroups.h"
#include "host/rules.h"
#include "host/swap.h"
#include "model/kernel_rules.h"
#include "cgroup/pressure.h"
#include "cgroup/reader.h"
#include "common/text.h"

namespace cgmem::host {

namespace {

std::string read_or_empty(const std::string& path) {
  auto text = cgroup::read_text(path);
  return text ? *text : std::string();
}

// The whole of a gzip file (zlib), or nullopt.
std::optional<std::string> read_gzip(const std::string& path) {
  gzFile file = gzopen(path.c_str(), "rb");
  if (!file) return std::nullopt;
  std::string out;
  char chunk[16384];
  int n;
  while ((n = gzread(file, chunk, sizeof chunk)) > 0) out.append(chunk, static_cast<size_t>(n));
  bool ok = n == 0;
  gzclose(file);
  if (!ok) return std::nullopt;
  return out;
}

void probe_hz(const HostRoots& roots, HostFacts& facts) {
  facts.hz_source = "unknown";
  if (!facts.kernel.empty()) {
    std::string boot_config = roots.boot + "/config-" + facts.kernel;
    if (auto text = cgroup::read_text(boot_config)) {
      if (auto hz = config_hz(*text)) {
        facts.hz = hz, facts.hz_source = boot_config;
        return;
      }
    }
  }
  std::string proc_config = roots.proc + "/config.gz";
  if (auto text = read_gzip(proc_config)) {
    if (auto hz = config_hz(*text)) facts.hz = hz, facts.hz_source = proc_config;
  }
}

}  // namespace

std::vector<std::string> release_patches(std::string_view release) {
  constexpr std::string_view kMark = "-cgmem-";
  size_t at = release.find(kMark);
  if (at == std::string_view::npos) return {};
  std::string_view name = trim(release.substr(at + kMark.size()));
  bool slots_upstream = model::version_stock_slots(release) == model::kMaxStockSlots;
  // One suffix per patch, in the order they are applied (src/kernel/inputs.h).
  std::vector<std::string> patches;
  if (name.ends_with("-trace")) {
    name.remove_suffix(6);
    patches.emplace_back("memcg-trace");
  }
  if (name.ends_with("-slots")) {
    name.remove_suffix(6);
    if (!slots_upstream) patches.insert(patches.begin(), "memcg-stock-slots");
  }
  if (name.ends_with("-throttle")) patches.insert(patches.begin(), "memory-high-throttle");
  return patches;
}

void probe_stock_slots(const HostRoots& roots, HostFacts& facts) {
  if (auto slots = read_stock_slots(roots.sys)) {
    facts.stock_slots = *slots, facts.stock_slots_source = "parameter";
    return;
  }
  facts.stock_slots = model::version_stock_slots(facts.kernel);
  facts.stock_slots_source = facts.stock_slots ? "version" : "unknown";
}

std::optional<unsigned> config_hz(std::string_view config_text) {
  while (!config_text.empty()) {
    std::string_view line = trim(next_line(config_text));
    if (!line.starts_with("CONFIG_HZ=")) continue;
    auto hz = to_u64(line.substr(10));
    if (hz && *hz > 0 && *hz <= 100000) return static_cast<unsigned>(*hz);
  }
  return std::nullopt;
}

std::optional<unsigned> count_cpu_list(std::string_view text) {
  std::string_view rest = trim(text);
  if (rest.empty()) return std::nullopt;
  uint64_t count = 0;
  while (!rest.empty()) {
    std::string_view range = next_token(rest, ',');
    size_t dash = range.find('-');
    auto first = to_u64(range.substr(0, dash));
    auto last = dash == std::string_view::npos ? first : to_u64(range.substr(dash + 1));
    if (!first || !last || *last < *first || *last - *first > 65536) return std::nullopt;
    count += *last - *first + 1;
  }
  if (count > 65536) return std::nullopt;
  return static_cast<unsigned>(count);
}

std::string chosen_word(std::string_view text) {
  size_t open = text.find('['), close = text.find(']');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open) return {};
  return std::string(text.substr(open + 1, close - open - 1));
}

std::vector<SwapDevice> parse_swaps(std::string_view text) {
  std::vector<SwapDevice> out;
  next_line(text);  // "Filename Type Size Used Priority"
  while (!text.empty()) {
    std::string_view line = trim(next_line(text));
    std::string_view fields = line;
    std::string_view name = next_word(fields), type = next_word(fields);
    auto size = to_u64(next_word(fields));
    auto used = to_u64(next_word(fields));
    std::string_view priority = next_word(fields);
    if (name.empty() || !size || !used || *size > UINT64_MAX / 1024) continue;
    bool negative = priority.starts_with('-');
    auto magnitude = to_u64(negative ? priority.substr(1) : priority);
    int prio = magnitude && *magnitude < 1000000 ? static_cast<int>(*magnitude) : 0;
    out.push_back({std::string(name), std::string(type), *size * 1024, *used * 1024,
                   negative ? -prio : prio});
  }
  return out;
}

std::optional<uint64_t> mem_total(std::string_view meminfo_text) {
  while (!meminfo_text.empty()) {
    std::string_view line = next_line(meminfo_text);
    if (!line.starts_with("MemTotal:")) continue;
    std::string_view rest = trim(line.substr(9));
    auto kib = to_u64(next_token(rest));
    if (!kib || *kib > UINT64_MAX / 1024) return std::nullopt;
    return *kib * 1024;
  }
  return std::nullopt;
}

std::optional<std::string> virtualization(std::string_view cmdline, std::string_view cpuinfo) {
  for (std::string_view rest = trim(cmdline); !rest.empty();) {
    std::string_view word = next_word(rest);
    if (word == "cgmem.accel=kvm" || word == "cgmem.accel=tcg") return std::string(word.substr(12));
  }
  for (std::string_view rest = cpuinfo; !rest.empty();) {
    std::string_view line = next_line(rest);
    if (!line.starts_with("flags")) continue;
    auto colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    for (std::string_view flags = line.substr(colon + 1); !flags.empty();) {
      if (next_word(flags) == "hypervisor") return "hypervisor";
    }
    break;  // every CPU lists the same flags
  }
  return std::nullopt;
}

HostFacts probe_host(const HostRoots& roots) {
  HostFacts facts;
  facts.kernel = std::string(trim(read_or_empty(roots.proc + "/sys/kernel/osrelease")));
  probe_hz(roots, facts);
  probe_stock_slots(roots, facts);
  facts.kernel_patches = release_patches(facts.kernel);
  long page = ::sysconf(_SC_PAGESIZE);
  facts.page_size = page > 0 ? static_cast<uint64_t>(page) : 0;
  facts.cpus = count_cpu_list(read_or_empty(roots.sys + "/devices/system/cpu/online")).value_or(0);
  facts.mem_total_bytes = mem_total(read_or_empty(roots.proc + "/meminfo")).value_or(0);
  facts.swaps = parse_swaps(read_or_empty(roots.proc + "/swaps"));
  for (const auto& swap : facts.swaps) facts.swap_total_bytes += swap.size_bytes;
  if (auto zswap = cgroup::read_text(roots.sys + "/module/zswap/parameters/enabled")) {
    std::string_view value = trim(*zswap);
    facts.zswap = value == "Y" || value == "1";
  }
  probe_swap(roots, facts);
  facts.thp = chosen_word(read_or_empty(roots.sys + "/kernel/mm/transparent_hugepage/enabled"));
  facts.psi = cgroup::parse_pressure(read_or_empty(roots.proc + "/pressure/memory"), "memory").has_value();
  facts.virtualized = virtualization(read_or_empty(roots.proc + "/cmdline"), read_or_empty(roots.proc + "/cpuinfo"));
  probe_cgroups(roots, facts);
  return facts;
}

}  // namespace cgmem::host
