#include "report/read_run.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <future>
#include <set>

#include "common/json_get.h"
#include "report/jsonl.h"
#include "model/penalty.h"
#include "report/read_ops.h"
#include "report/trace_read.h"
#include "run_format/run_format.h"

namespace cgmem::report {

namespace fs = std::filesystem;
namespace sample_key = run_format::sample_key;
namespace meta_key = run_format::meta_key;
namespace limit_key = run_format::limit_key;
namespace spec_key = run_format::spec_key;

namespace {

std::optional<Limit> get_limit(const Json& limits, const char* key) {
  const Json* v = json_child(limits, key);
  if (!v) return std::nullopt;
  if (v->is_string() && v->get<std::string>() == "max") return Limit::max();
  if (auto bytes = get_u64(limits, key)) return Limit::of(*bytes);
  return std::nullopt;
}

std::optional<int> get_int(const Json& j, const char* key) {
  auto v = get_i64(j, key);
  if (!v || *v < INT32_MIN || *v > INT32_MAX) return std::nullopt;
  return static_cast<int>(*v);
}

std::optional<ZswapSettings> get_zswap_settings(const Json* z) {
  if (!z || !z->is_object()) return std::nullopt;
  ZswapSettings out;
  out.enabled = get_bool(*z, "enabled").value_or(false);
  out.compressor = get_str(*z, "compressor").value_or("");
  out.zpool = get_str(*z, "zpool").value_or("");
  out.max_pool_percent = get_int(*z, "max_pool_percent");
  out.accept_threshold_percent = get_int(*z, "accept_threshold_percent");
  out.shrinker_enabled = get_bool(*z, "shrinker_enabled");
  return out;
}

HostSwap get_host_swap(const Json& h) {
  HostSwap out;
  out.setting = get_str(h, "swap_setting");
  out.kind = get_str(h, "swap_kind");
  out.total_bytes = get_u64(h, "swap_total_bytes");
  out.zswap = get_zswap_settings(json_child(h, "zswap_settings"));
  out.swappiness = get_int(h, "swappiness");
  return out;
}

void read_meta_parts(const Json& j, Meta& m) {
  const Json empty = Json::object();
  const Json* spec = json_child(j, meta_key::kSpec);
  const Json* work = json_child(j, meta_key::kWorkload);
  const Json* host = json_child(j, meta_key::kHost);
  const Json* code = json_child(j, meta_key::kCode);
  if (const Json* limits = json_child(j, meta_key::kLimits)) {
    m.max = get_limit(*limits, limit_key::kMax);
    m.high = get_limit(*limits, limit_key::kHigh);
    m.swap_max = get_limit(*limits, limit_key::kSwapMax);
    m.swap_high = get_limit(*limits, limit_key::kSwapHigh);
    if (auto shift = get_u64(*limits, limit_key::kHighThrottle)) m.high_throttle = static_cast<uint32_t>(*shift);
  }
  const Json& s = spec ? *spec : empty;
  m.cpu = get_int(s, spec_key::kCpu);
  m.sampler_cpu = get_int(s, spec_key::kSamplerCpu);
  m.sampler_shares_cpu = get_bool(s, spec_key::kSamplerSharesCpu);
  m.traced = get_bool(s, spec_key::kTrace).value_or(false);
  m.interval_ms = get_f64(s, spec_key::kIntervalMs).value_or(0);
  m.cap_s = get_f64(s, spec_key::kCapS).value_or(0);
  m.neighbour_ms = get_f64(s, spec_key::kNeighbourIntervalMs);
  m.neighbours = static_cast<unsigned>(std::min<uint64_t>(get_u64(s, spec_key::kNeighbours).value_or(m.neighbour_ms ? 1 : 0), UINT32_MAX));
  const Json& w = work ? *work : empty;
  m.chunk_bytes = get_u64(w, "chunk_bytes").value_or(m.chunk_bytes);
  m.target_bytes = get_u64(w, "target_bytes").value_or(0);
  m.procs = get_int(w, "procs").value_or(1);
  m.populate = get_bool(w, "populate").value_or(false);
  m.own_code = get_bool(w, "own_code").value_or(false);
  m.own_code_bytes = get_u64(w, "own_code_bytes").value_or(0);
  m.file = get_str(w, "file").has_value();
  m.set_own_high = get_u64(w, "set_own_high");
  m.command = get_str(w, "kind").value_or("") == "command";
  for (auto [from, into] : {std::pair{json_child(w, "argv"), &m.command_argv}, std::pair{json_child(s, spec_key::kLoad), &m.load_argv},
                            std::pair{json_child(s, spec_key::kWorkloadArgs), &m.workload_args}})
    if (from && from->is_array())
      for (const auto& word : *from)
        if (word.is_string()) into->push_back(word.get<std::string>());
  if (auto port = get_u64(s, spec_key::kReadyTcp); port && *port > 0 && *port <= 65535) m.ready_tcp = static_cast<uint16_t>(*port);
  m.ready_delay_ms = get_f64(s, spec_key::kReadyDelayMs);
  const Json& h = host ? *host : empty;
  m.kernel = get_str(h, "kernel").value_or("");
  m.hz = get_int(h, "hz").value_or(0);
  m.hz_source = get_str(h, "hz_source").value_or("");
  m.virtualized = get_str(h, "virtualized").value_or("");
  m.swap = get_host_swap(h);
  m.page_size = get_u64(h, "page_size").value_or(4096);
  const Json& c = code ? *code : empty;
  m.code_version = get_str(c, "version").value_or("");
  m.git_commit = get_str(c, "git_commit").value_or("");
  m.binary_hash = get_str(c, "binary_hash").value_or("");
}

std::unexpected<Error> bad_meta(const std::string& path, const std::string& key, const Json& value,
                                const char* expected) {
  return fail(fmt::format("meta.json: {} is {}, not {}", key, value.dump(), expected), path,
              "the run directory is damaged: fix the value, rerun the run or leave it out");
}

// The values the report divides by or compares with: a present key with a
// value no kernel gives is an error that names it, never a crash (a page
// size of 0 divided by zero) nor a silent default.
Result<void> check_meta(const Json& j, const std::string& path) {
  const Json empty = Json::object();
  const Json* host = json_child(j, meta_key::kHost);
  const Json* work = json_child(j, meta_key::kWorkload);
  const Json* limits = json_child(j, meta_key::kLimits);
  const Json* spec = json_child(j, meta_key::kSpec);
  auto page = get_u64(host ? *host : empty, "page_size");
  if (host && json_child(*host, "page_size") && (!page || !model::plausible_page_size(*page)))
    return bad_meta(path, "host.page_size", *json_child(*host, "page_size"), model::kPageSizeRange);
  auto hz = get_i64(host ? *host : empty, "hz");
  if (host && json_child(*host, "hz") && !json_child(*host, "hz")->is_null() && (!hz || !model::plausible_hz(*hz)))
    return bad_meta(path, "host.hz", *json_child(*host, "hz"), model::kHzRange);
  for (const char* key : {limit_key::kMax, limit_key::kHigh, limit_key::kSwapMax, limit_key::kSwapHigh}) {
    const Json* v = limits ? json_child(*limits, key) : nullptr;
    bool ok = !v || v->is_null() || (v->is_string() && v->get<std::string>() == "max") || get_u64(*limits, key);
    if (!ok) return bad_meta(path, fmt::format("limits.{}", key), *v, "bytes, \"max\" or null");
  }
  // The RFC's memory.high.throttle: the kernel takes 0 to 32.
  if (const Json* v = limits ? json_child(*limits, limit_key::kHighThrottle) : nullptr; v && !v->is_null()) {
    auto shift = get_u64(*limits, limit_key::kHighThrottle);
    if (!shift || *shift > 32) return bad_meta(path, "limits.high_throttle", *v, "a shift of 0 to 32 or null");
  }
  if (const Json* chunk = work ? json_child(*work, "chunk_bytes") : nullptr) {
    auto bytes = get_u64(*work, "chunk_bytes");
    if (!bytes || *bytes == 0 || *bytes % page.value_or(4096) != 0)
      return bad_meta(path, "workload.chunk_bytes", *chunk, "a whole number of pages");
  }
  if (const Json* procs = work ? json_child(*work, "procs") : nullptr; procs && get_u64(*work, "procs").value_or(0) == 0)
    return bad_meta(path, "workload.procs", *procs, "1 or more processes");
  for (const char* key : {spec_key::kIntervalMs, spec_key::kCapS}) {
    const Json* v = spec ? json_child(*spec, key) : nullptr;
    if (v && !v->is_null() && get_f64(*spec, key).value_or(-1) < 0)
      return bad_meta(path, fmt::format("spec.{}", key), *v, "a duration of 0 or more");
  }
  return {};
}

std::map<std::string, uint64_t> counters(const Json* obj) {
  std::map<std::string, uint64_t> out;
  if (!obj || !obj->is_object()) return out;
  for (auto it = obj->begin(); it != obj->end(); ++it) {
    if (auto v = get_u64(*obj, it.key().c_str())) out[it.key()] = *v;
  }
  return out;
}

std::optional<PsiTotals> get_psi(const Json* obj) {
  if (!obj) return std::nullopt;
  const Json* some = json_child(*obj, "some");
  if (!some) return std::nullopt;
  PsiTotals psi;
  psi.some_total_us = get_f64(*some, "total").value_or(0);
  psi.some_avg10 = get_f64(*some, "avg10").value_or(0);
  if (const Json* full = json_child(*obj, "full")) {
    psi.full_total_us = get_f64(*full, "total").value_or(0);
    psi.full_avg10 = get_f64(*full, "avg10").value_or(0);
  }
  return psi;
}

Result<std::string> slurp(const std::string& path) {
  auto file = MappedFile::open(path);
  if (!file) return std::unexpected(file.error());
  return std::string(file->text());
}

// "anon-over-max-r2" -> ("anon-over-max", 2); no suffix -> (name, 0).
std::pair<std::string, int> split_rep(const std::string& name) {
  auto dash = name.rfind("-r");
  if (dash == std::string::npos || dash + 2 >= name.size()) return {name, 0};
  int rep = 0;
  const char* first = name.data() + dash + 2;
  const char* last = name.data() + name.size();
  auto [ptr, ec] = std::from_chars(first, last, rep);
  if (ec != std::errc() || ptr != last) return {name, 0};
  return {name.substr(0, dash), rep};
}

std::string config_of(const Meta& m) {
  bool max = m.max && !m.max->is_max();
  bool high = m.high && !m.high->is_max();
  return max && high ? "both" : max ? "max" : high ? "high" : "none";
}

}  // namespace

Result<Meta> parse_meta(std::string_view text, const std::string& path) {
  Json j = Json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    return fail("read meta.json: not a JSON object", path,
                "the run directory is damaged; rerun it or leave it out");
  }
  if (auto ok = check_meta(j, path); !ok) return std::unexpected(ok.error());
  Meta m;
  m.schema = get_int(j, meta_key::kSchema).value_or(0);
  m.name = get_str(j, meta_key::kName).value_or("");
  m.started_at = get_str(j, meta_key::kStartedAt).value_or("");
  m.started_mono_ns = get_i64(j, meta_key::kStartedMonoNs).value_or(0);
  m.claim_sha256 = get_str(j, meta_key::kClaimSha256);
  read_meta_parts(j, m);
  return m;
}

Result<OutcomeRecord> parse_outcome(std::string_view text, const std::string& path) {
  Json j = Json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    return fail("read outcome.json: not a JSON object", path, "the run is read as unfinished");
  }
  namespace key = run_format::outcome_key;
  OutcomeRecord o;
  o.status = get_str(j, key::kStatus).value_or("");
  o.exit_code = get_int(j, key::kExitCode);
  o.signal = get_int(j, key::kSignal);
  o.duration_s = get_f64(j, key::kDurationS).value_or(0);
  o.time_to_kill_s = get_f64(j, key::kTimeToKillS);
  o.events = counters(json_child(j, key::kEvents));
  o.peak_bytes = get_u64(j, key::kPeakBytes);
  if (const Json* errors = json_child(j, key::kErrors); errors && errors->is_array()) {
    for (const auto& e : *errors)
      if (e.is_string()) o.errors.push_back(e.get<std::string>());
  }
  if (const Json* trace = json_child(j, key::kTrace); trace && trace->is_object()) o.trace = parse_trace_facts(*trace);
  return o;
}

bool parse_sample_line(std::string_view line, SampleLine& s) {
  Json j = Json::parse(line, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return false;
  s.t_ns = get_i64(j, sample_key::kTNs).value_or(0);
  s.memory_current = get_u64(j, sample_key::kMemoryCurrent);
  s.memory_events = counters(json_child(j, sample_key::kMemoryEvents));
  s.memory_pressure = get_psi(json_child(j, sample_key::kMemoryPressure));
  s.io_pressure = get_psi(json_child(j, sample_key::kIoPressure));
  s.memory_stat = counters(json_child(j, sample_key::kMemoryStat));
  s.swap_current = get_u64(j, sample_key::kMemorySwapCurrent);
  s.swap_events = counters(json_child(j, sample_key::kMemorySwapEvents));
  s.zswap_current = get_u64(j, sample_key::kMemoryZswapCurrent);
  if (const Json* cpu = json_child(j, sample_key::kCpuStat)) s.cpu_usage_usec = get_u64(*cpu, "usage_usec");
  if (const Json* io = json_child(j, sample_key::kIoStat); io && io->is_object()) {
    uint64_t sum = 0;
    for (const auto& dev : *io) sum += get_u64(dev, "rbytes").value_or(0);
    s.io_rbytes = sum;
  }
  if (const Json* procs = json_child(j, sample_key::kProcs); procs && procs->is_array()) {
    for (const auto& p : *procs) {
      ProcSample ps;
      ps.pid = get_int(p, sample_key::kPid).value_or(0);
      auto state = get_str(p, sample_key::kState);
      ps.state = state && !state->empty() ? (*state)[0] : '?';
      ps.wchan = get_str(p, sample_key::kWchan).value_or("");
      ps.cpu_ticks =
          get_u64(p, sample_key::kUtimeTicks).value_or(0) + get_u64(p, sample_key::kStimeTicks).value_or(0);
      s.procs.push_back(std::move(ps));
    }
  }
  return true;
}

namespace {

Result<void> read_ops(const std::string& path, Run& run) {
  if (!fs::exists(path)) return {};
  auto file = MappedFile::open(path);
  if (!file) return std::unexpected(file.error());
  run.ops_lines = scan_ops(file->text(), run.ops);
  return {};
}

Result<void> read_samples(const std::string& path, Run& run) {
  if (!fs::exists(path)) return {};
  auto file = MappedFile::open(path);
  if (!file) return std::unexpected(file.error());
  run.samples_lines = for_each_line(file->text(), [&](std::string_view line) {
    SampleLine s;
    if (!parse_sample_line(line, s)) return false;
    run.samples.push_back(std::move(s));
    return true;
  });
  return {};
}

// trace.jsonl of a traced run. A trace that cannot be read (too large, not
// a regular file) leaves the run as it is and says why in trace_problem:
// the rest of the run is still read and reported.
void read_trace_of(const std::string& path, Run& run) {
  std::error_code ec;
  if (!fs::exists(fs::symlink_status(path, ec))) {
    if (run.meta.traced) run.trace_problem = "traced, but the run directory has no trace.jsonl";
    return;
  }
  std::optional<uint64_t> run_cgroup;
  if (run.outcome && run.outcome->trace) run_cgroup = run.outcome->trace->run_cgroup_id;
  auto log = read_trace(path, run_cgroup);
  if (log) run.trace = std::move(*log);
  else run.trace_problem = log.error().message();
}

}  // namespace

Result<Run> read_run(const std::string& dir) {
  Run run;
  run.dir = dir;
  auto in_dir = [&dir](const char* name) { return dir + "/" + name; };
  auto meta_text = slurp(in_dir(run_format::kMetaFile));
  if (!meta_text) return std::unexpected(meta_text.error());
  auto meta = parse_meta(*meta_text, in_dir(run_format::kMetaFile));
  if (!meta) return std::unexpected(meta.error());
  run.meta = std::move(*meta);
  std::string outcome_path = in_dir(run_format::kOutcomeFile);
  if (fs::exists(outcome_path)) {
    auto text = slurp(outcome_path);
    if (!text) return std::unexpected(text.error());
    auto outcome = parse_outcome(*text, outcome_path);
    if (outcome) run.outcome = std::move(*outcome);
    else run.outcome_problem = outcome.error().message();
  }
  // The samples and the trace are parsed while the ops are scanned: they share nothing.
  auto samples = std::async(std::launch::async, read_samples, in_dir(run_format::kSamplesFile), std::ref(run));
  auto trace = std::async(std::launch::async, read_trace_of, in_dir(run_format::kTraceFile), std::ref(run));
  auto ops = read_ops(in_dir(run_format::kOpsFile), run);
  trace.get();
  if (auto r = samples.get(); !r) return std::unexpected(r.error());
  if (!ops) return std::unexpected(ops.error());
  std::string name = run.meta.name.empty() ? fs::path(dir).filename().string() : run.meta.name;
  auto [workload, rep] = split_rep(name);
  run.config = config_of(run.meta);
  // "anon-over-max" under config max is workload "anon-over".
  std::string suffix = "-" + run.config;
  if (workload.size() > suffix.size() && workload.ends_with(suffix)) workload.resize(workload.size() - suffix.size());
  run.workload = workload;
  run.rep = rep;
  return run;
}

// How deep below a given directory runs are looked for: a batch of
// batches in the VM's output (X/runs/NAME/...) is 3 levels down.
constexpr int kRunSearchDepth = 6;

Result<std::vector<std::string>> find_runs(const std::vector<std::string>& paths) {
  std::vector<std::string> runs;
  std::set<std::string> seen;  // a run named twice (runs/a runs/a, or a run and its batch) counts once
  auto add = [&](const std::string& run) {
    std::error_code ec;
    if (seen.insert(fs::weakly_canonical(run, ec).string()).second) runs.push_back(run);
  };
  for (const auto& path : paths) {
    std::error_code ec;
    if (fs::exists(fs::path(path) / run_format::kMetaFile, ec)) {
      add(path);
      continue;
    }
    if (!fs::is_directory(path, ec)) {
      return fail("read run directory: no such directory", path, "give a run or batch directory");
    }
    std::vector<std::string> found;
    // At any depth: `cgmem vm --out X -- run ...` writes X/runs/NAME-TIMESTAMP.
    // A run directory is not searched further; links are not followed.
    fs::recursive_directory_iterator it(path, fs::directory_options::skip_permission_denied, ec), end;
    for (; !ec && it != end; it.increment(ec)) {
      std::error_code entry_ec;
      if (it.depth() >= kRunSearchDepth || it->is_symlink(entry_ec) || !it->is_directory(entry_ec)) {
        it.disable_recursion_pending();
        continue;
      }
      if (fs::exists(it->path() / run_format::kMetaFile, entry_ec)) {
        found.push_back(it->path().string());
        it.disable_recursion_pending();
      }
    }
    if (found.empty()) {
      return fail("read run directory: no meta.json here or in the directories below", path,
                  "give a directory that `cgmem run` or `cgmem matrix` wrote");
    }
    std::sort(found.begin(), found.end());
    for (const auto& run : found) add(run);
  }
  return runs;
}

}  // namespace cgmem::report
