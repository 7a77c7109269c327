#include "trace/tracer.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "common/fd.h"
#include "common/file.h"
#include "common/text.h"
#include "proc/self_cgroup.h"
#include "trace/kallsyms.h"
#include "trace/records.h"
#include "trace/ring_page.h"

namespace cgmem::trace {
namespace {

namespace key = run_format::trace_key;

constexpr char kNoEvents[] =
    "boot cgmem's own kernel, which has them: cgmem kernel build --hz 1000 --patch memory-high-throttle --patch "
    "memcg-stock-slots --patch memcg-trace, then cgmem vm --kernel hz1000-throttle-slots-trace -- run --trace ...";
// Pages read from one CPU per poll at most, so a flood cannot hold the
// sampler's tick; what is left is read at the next.
constexpr int kMaxPagesPerPoll = 2048;

std::optional<uint64_t> inode_of(const std::string& path) {
  struct stat st{};
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  return static_cast<uint64_t>(st.st_ino);
}

// "/system.slice/x": this process's cgroup v2 path; empty when unknown.
std::string own_cgroup(const std::string& proc_root) {
  auto text = read_file(proc_root + "/self/cgroup", "/proc/self/cgroup", 1 << 16);
  if (!text) return {};
  auto parsed = proc::parse_proc_cgroup(*text, "/proc/self/cgroup");
  if (!parsed) return {};
  return parsed->v2_path().value_or("");
}

// The CPUs tracefs has a buffer for: per_cpu/cpuN.
std::vector<int> buffer_cpus(const std::string& per_cpu) {
  std::vector<int> cpus;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(per_cpu, ec)) {
    std::string name = entry.path().filename();
    if (!name.starts_with("cpu")) continue;
    if (auto n = to_u64(std::string_view(name).substr(3)); n && *n < 4096) cpus.push_back(static_cast<int>(*n));
  }
  std::ranges::sort(cpus);
  return cpus;
}

// "entries: 3\noverrun: 0\ncommit overrun: 0\n...dropped events: 0": the
// events this CPU's buffer lost (overwritten, or dropped when full).
uint64_t lost_in_stats(std::string_view stats) {
  uint64_t lost = 0;
  while (!stats.empty()) {
    std::string_view line = next_line(stats);
    size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    std::string_view key = line.substr(0, colon);
    if (key != "overrun" && key != "commit overrun" && key != "dropped events") continue;
    if (auto n = to_u64(trim(line.substr(colon + 1)))) lost += *n;
  }
  return lost;
}

}  // namespace

struct Tracer::State {
  struct CpuBuffer {
    int cpu;
    Fd pipe;  // per_cpu/cpuN/trace_pipe_raw, non-blocking
  };
  struct Pending {
    uint64_t ts;
    int cpu;
    Decoded event;
  };

  TraceSetup setup;
  Instance instance;
  Decoder decoder;
  PageLayout layout;
  std::vector<CpuBuffer> cpus;
  Kallsyms kallsyms;
  uint64_t origin_ns = 0;
  uint64_t run_id = 0, driver_id = 0;
  std::vector<uint64_t> neighbour_ids;
  std::unordered_map<uint64_t, std::string> cgroups;  // id -> path under the mount
  std::unordered_set<int> pids;                       // whose scheduler events are kept
  std::set<uint64_t> ids_seen;
  std::vector<uint8_t> page;
  uint64_t lines = 0, missed = 0, bad_pages = 0;
  bool missed_unknown = false;
  std::vector<std::string> errors;
  std::optional<nlohmann::json> summary;

  void note(std::string error) {
    if (errors.size() < 20) errors.push_back(std::move(error));
  }
  bool keep(const Decoded& e) const;
  void write(std::vector<Pending>& pending);
  void resolve_cgroups();
};

bool Tracer::State::keep(const Decoded& e) const {
  auto kept = [&](const char* key) { return pids.contains(e.fields[key].get<int>()); };
  switch (e.kind) {
    case Kind::sched_waking: return kept(key::kTargetPid);
    case Kind::sched_switch: return kept(key::kPrevPid) || kept(key::kNextPid);
    default: return true;  // the memcg events are filtered in the kernel
  }
}

void Tracer::State::write(std::vector<Pending>& pending) {
  std::ranges::stable_sort(pending, {}, &Pending::ts);
  std::string out;
  for (auto& p : pending) {
    if (p.event.kind == Kind::high_penalty || p.event.kind == Kind::high_sleep) pids.insert(p.event.pid);
    if (!keep(p.event)) continue;
    for (const char* name : {key::kCgroupId, key::kByCgroupId})
      if (auto it = p.event.fields.find(name); it != p.event.fields.end() && it->get<uint64_t>() != 0)
        ids_seen.insert(it->get<uint64_t>());
    nlohmann::ordered_json line = {{key::kTNs, static_cast<int64_t>(p.ts - origin_ns)},
                                   {key::kCpu, p.cpu},
                                   {key::kPid, p.event.pid},
                                   {key::kEvent, std::string(kEvents[static_cast<int>(p.event.kind)].line)}};
    line.update(p.event.fields);
    out += line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    out += '\n';
    ++lines;
  }
  pending.clear();
  if (out.empty()) return;
  if (auto ok = write_all(setup.out_fd, out); !ok) note(fmt::format("write trace.jsonl: {}", ok.error().message()));
}

// The cgroups of the ids the events named, by their directories' inode
// numbers (a cgroup's id), under the cgroup2 mount; bounded walk.
void Tracer::State::resolve_cgroups() {
  std::set<uint64_t> wanted;
  for (uint64_t id : ids_seen)
    if (!cgroups.contains(id)) wanted.insert(id);
  if (wanted.empty() || setup.cgroup2_mount.empty()) return;
  std::error_code ec;
  auto options = std::filesystem::directory_options::skip_permission_denied;
  int visited = 0;
  for (auto it = std::filesystem::recursive_directory_iterator(setup.cgroup2_mount, options, ec);
       !ec && it != std::filesystem::recursive_directory_iterator() && visited < 20000 && !wanted.empty();
       it.increment(ec), ++visited) {
    if (it.depth() > 16) {
      it.disable_recursion_pending();
      continue;
    }
    if (!it->is_directory(ec) || it->is_symlink(ec)) continue;
    auto id = inode_of(it->path());
    if (!id || !wanted.contains(*id)) continue;
    cgroups[*id] = it->path().string().substr(setup.cgroup2_mount.size());
    wanted.erase(*id);
  }
}

Result<std::unique_ptr<Tracer>> Tracer::start(const TraceSetup& setup) {
  const std::string& root = setup.tracefs;
  struct stat st{};
  if (::stat((root + "/instances").c_str(), &st) != 0)
    return fail(fmt::format("--trace: tracefs is not mounted at {}", root), root,
                fmt::format("mount it (mount -t tracefs nodev {}), on a kernel with CONFIG_FTRACE", root));
  for (const auto& e : kEvents) {
    std::string format = fmt::format("{}/events/{}/{}/format", root, e.system, e.name);
    if (::stat(format.c_str(), &st) != 0)
      return fail(fmt::format("--trace: this kernel has no {}:{} trace event", e.system, e.name), format,
                  e.system == "memcg" ? kNoEvents : "build the kernel with CONFIG_FTRACE");
  }
  auto header = read_file(root + "/events/header_page", "tracefs's header_page", 1 << 16);
  if (!header) return std::unexpected(header.error());
  auto header_format = parse_format(*header);
  if (!header_format) return std::unexpected(header_format.error());
  const Field* commit = header_format->field("commit");
  const Field* data = header_format->field("data");
  if (!commit || !data || data->offset < commit->offset + commit->size)
    return fail("tracefs's header_page has no commit and data fields", root + "/events/header_page");
  PageLayout layout{.commit_offset = commit->offset, .commit_size = commit->size, .data_offset = data->offset,
                    .data_size = data->size};

  auto instance = Instance::create(root, fmt::format("cgmem-{}", setup.driver_pid));
  if (!instance) return std::unexpected(instance.error());
  std::vector<std::pair<Kind, EventFormat>> formats;
  for (const auto& e : kEvents) {
    auto text = instance->read(fmt::format("events/{}/{}/format", e.system, e.name));
    if (!text) return std::unexpected(text.error());
    auto format = parse_format(*text);
    if (!format) return std::unexpected(format.error());
    formats.emplace_back(e.kind, std::move(*format));
  }
  auto decoder = Decoder::create(formats);
  if (!decoder) return std::unexpected(decoder.error());

  auto state = std::unique_ptr<State>(new State{.setup = setup,
                                                .instance = std::move(*instance),
                                                .decoder = std::move(*decoder),
                                                .layout = layout,
                                                .kallsyms = Kallsyms(setup.proc_root + "/kallsyms")});
  State& s = *state;
  auto relative = [&](const std::string& path) {
    return path.starts_with(setup.cgroup2_mount) ? path.substr(setup.cgroup2_mount.size()) : path;
  };
  s.run_id = setup.run_cgroup.id;
  s.cgroups[s.run_id] = relative(setup.run_cgroup.path);
  for (const auto& cg : setup.neighbour_cgroups) {
    s.neighbour_ids.push_back(cg.id);
    s.cgroups[cg.id] = relative(cg.path);
  }
  std::string own = own_cgroup(setup.proc_root);
  if (auto id = own.empty() ? std::nullopt : inode_of(setup.cgroup2_mount + own)) {
    s.driver_id = *id;
    s.cgroups[*id] = own;
  }
  s.pids.insert(setup.driver_pid);
  // Before the run: read at the first drain of every stock (a run reaching
  // memory.max), it held the driver's tick 1.7 s, and the OOM-killed
  // workload was reaped that much later (bench/trace_overhead.sh).
  s.kallsyms.load();

  // The buffer, the clock the driver reads (CLOCK_MONOTONIC), the filters,
  // then the events.
  if (auto ok = s.instance.write("buffer_size_kb", std::to_string(setup.buffer_kb)); !ok)
    return std::unexpected(ok.error());
  if (auto ok = s.instance.write("trace_clock", "mono"); !ok) return std::unexpected(ok.error());
  std::string run_filter = fmt::format("id == {}", s.run_id);
  for (const char* name : {"memcg_stock_drain", "memcg_high_penalty", "memcg_high_sleep"})
    if (auto ok = s.instance.write(fmt::format("events/memcg/{}/filter", name), run_filter); !ok)
      return std::unexpected(ok.error());
  for (const auto& e : kEvents)
    if (auto ok = s.instance.write(fmt::format("events/{}/{}/enable", e.system, e.name), "1"); !ok)
      return std::unexpected(ok.error());
  for (int cpu : buffer_cpus(s.instance.file("per_cpu"))) {
    std::string pipe = s.instance.file(fmt::format("per_cpu/cpu{}/trace_pipe_raw", cpu));
    Fd fd(::open(pipe.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
    if (!fd.valid()) return sys_error("--trace: open a CPU's trace buffer", pipe);
    s.cpus.push_back({.cpu = cpu, .pipe = std::move(fd)});
  }
  if (s.cpus.empty()) return fail("--trace: tracefs shows no CPU buffers", s.instance.file("per_cpu"));
  s.page.resize(layout.data_offset + layout.data_size);
  return std::unique_ptr<Tracer>(new Tracer(std::move(state)));
}

Tracer::Tracer(std::unique_ptr<State> state) : s_(std::move(state)) {}

Tracer::~Tracer() { (void)stop(); }

void Tracer::set_origin(uint64_t mono_ns) { s_->origin_ns = mono_ns; }

void Tracer::keep_pid(pid_t pid) { s_->pids.insert(pid); }

void Tracer::poll() {
  State& s = *s_;
  if (s.summary) return;
  std::vector<State::Pending> pending;
  auto symbol = [&](uint64_t address) { return s.kallsyms.name(address); };
  for (auto& buffer : s.cpus) {
    for (int n = 0; n < kMaxPagesPerPoll; ++n) {
      ssize_t got = ::read(buffer.pipe.get(), s.page.data(), s.page.size());
      if (got < 0 && errno == EINTR) continue;
      if (got < 0 && errno != EAGAIN) s.note(fmt::format("read the trace of CPU {}: {}", buffer.cpu, strerror(errno)));
      if (got <= 0) break;
      auto page = parse_page(std::span(s.page.data(), static_cast<size_t>(got)), s.layout);
      if (!page) {
        ++s.bad_pages;
        s.note(fmt::format("CPU {}: {}", buffer.cpu, page.error().message()));
        continue;
      }
      s.missed += page->missed;
      if (page->missed_unknown && !s.missed_unknown)  // said once; outcome.json's lost_unknown says it too
        s.note(fmt::format("CPU {}: the kernel lost events before a page without saying how many", buffer.cpu));
      s.missed_unknown |= page->missed_unknown;
      for (const auto& raw : page->events)
        if (auto event = s.decoder.decode(raw.data, symbol))
          pending.push_back({.ts = raw.ts, .cpu = buffer.cpu, .event = std::move(*event)});
    }
  }
  s.write(pending);
}

nlohmann::json Tracer::stop() {
  State& s = *s_;
  if (s.summary) return *s.summary;
  poll();
  (void)s.instance.write("events/enable", "0");
  poll();  // what was written while the events went off
  std::vector<uint64_t> lost_by_cpu;
  uint64_t lost = s.missed;
  for (const auto& buffer : s.cpus) {
    auto stats = s.instance.read(fmt::format("per_cpu/cpu{}/stats", buffer.cpu));
    uint64_t n = stats ? lost_in_stats(*stats) : 0;
    if (!stats) s.note(stats.error().message());
    lost_by_cpu.push_back(n);
    lost += n;
  }
  s.cpus.clear();  // closed before the instance can go
  if (auto removed = s.instance.remove(); !removed) s.note(removed.error().message());
  s.resolve_cgroups();
  nlohmann::json cgroups = nlohmann::json::object();
  for (const auto& [id, path] : s.cgroups) cgroups[std::to_string(id)] = visible(path);
  s.summary = nlohmann::json{{key::kEvents, s.lines},
                             {key::kLost, lost},
                             {key::kLostByCpu, lost_by_cpu},
                             {key::kLostUnknown, s.missed_unknown},
                             {key::kUnreadablePages, s.bad_pages},
                             {key::kErrors, s.errors},
                             {key::kRunCgroupId, s.run_id},
                             {key::kNeighbourCgroupIds, s.neighbour_ids},
                             {key::kDriverPid, s.setup.driver_pid},
                             {key::kDriverCgroupId, s.driver_id},
                             {key::kCgroups, cgroups},
                             {key::kHz, s.setup.hz ? nlohmann::json(*s.setup.hz) : nlohmann::json(nullptr)}};
  return *s.summary;
}

}  // namespace cgmem::trace
