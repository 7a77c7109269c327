#include "lab/run_driver.h"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <ctime>
#include <fmt/format.h>
#include <memory>
#include <optional>
#include <vector>

#include "cgroup/cgroup.h"
#include "cgroup/device.h"
#include "cgroup/files.h"
#include "cgroup/flat_keyed.h"
#include "lab/kernel_log.h"
#include "lab/load_pipe.h"
#include "lab/marker.h"
#include "lab/neighbour.h"
#include "lab/ops_tail.h"
#include "lab/progress.h"
#include "lab/ready.h"
#include "lab/run_dir.h"
#include "lab/sampler.h"
#include "run_format/run_format.h"
#include "trace/tracer.h"

namespace cgmem::lab {
namespace {

namespace files = cgroup::files;
using cgroup::Cgroup;

volatile sig_atomic_t g_stop_signal = 0;
extern "C" void on_stop(int signal) { g_stop_signal = signal; }
// Nothing to record: a caught SIGCHLD only ends the tick sleep early, so a
// child's exit is reaped at once instead of at the next tick.
extern "C" void on_child(int) {}

// Installs the driver's handlers for its lifetime (no SA_RESTART: a signal
// wakes the tick sleep). exec resets caught handlers, so the workload gets
// the defaults.
class SignalScope {
 public:
  SignalScope() {
    g_stop_signal = 0;
    struct sigaction stop{}, child{};
    stop.sa_handler = on_stop;
    child.sa_handler = on_child;
    ::sigaction(SIGINT, &stop, &old_int_);
    ::sigaction(SIGTERM, &stop, &old_term_);
    ::sigaction(SIGCHLD, &child, &old_child_);
  }
  ~SignalScope() {
    ::sigaction(SIGINT, &old_int_, nullptr);
    ::sigaction(SIGTERM, &old_term_, nullptr);
    ::sigaction(SIGCHLD, &old_child_, nullptr);
  }

 private:
  struct sigaction old_int_{}, old_term_{}, old_child_{};
};

constexpr char kNotDelegatedHint[] = "the parent is not delegated to this user: pass --parent a delegated cgroup";

Result<void> pin_self(unsigned cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  if (::sched_setaffinity(0, sizeof set, &set) != 0)
    return sys_error(fmt::format("pin the driver to CPU {}", cpu));
  return {};
}

// Whether the driver (and so the sampler) and `pid` may run on one CPU, as
// the kernel has their affinities now; nullopt when it could not tell.
std::optional<bool> shares_cpu_with(pid_t pid) {
  cpu_set_t mine, theirs, both;
  if (::sched_getaffinity(0, sizeof mine, &mine) != 0 || ::sched_getaffinity(pid, sizeof theirs, &theirs) != 0)
    return std::nullopt;
  CPU_AND(&both, &mine, &theirs);
  return CPU_COUNT(&both) > 0;
}

nlohmann::json limit_json(const Limit& limit) {
  return limit.is_max() ? nlohmann::json("max") : nlohmann::json(limit.bytes());
}

// memory.events as an object of every key the kernel wrote.
nlohmann::json events_json(const Cgroup& cg) {
  nlohmann::json out = nlohmann::json::object();
  auto text = cg.read(files::kMemoryEvents);
  if (!text) return out;
  cgroup::for_each_flat(*text, [&](std::string_view key, uint64_t value) {
    out[std::string(key)] = value;
  });
  return out;
}

class Experiment {
 public:
  explicit Experiment(const DriverSetup& s) : s_(s), o_(s.options), sys_(s.system) {}
  ~Experiment();

  Result<void> prepare();
  RunResult run();
  // After a failed prepare(): removes what it created.
  void abandon();

 private:
  Result<void> open_parent();
  Result<Cgroup> create_marked(const std::string& name);
  Result<void> set_limits();
  Result<void> set_high_throttle();
  Result<void> set_io_limits();
  Result<void> write_meta();
  Result<void> start_trace();
  Result<void> start();
  void loop();
  void end_loop(uint64_t now, Progress& progress, bool kill);
  void sample(uint64_t now, Progress& progress);
  bool reap_workload(bool block);
  void stop_workload();
  bool command_run() const { return !o_.command.empty(); }
  // The driver's clock (hides cgmem::now_ns, so no line reads another).
  uint64_t now_ns() const { return sys_.clock->now_ns(); }
  bool load_due(uint64_t now) const;
  void start_load(uint64_t now);
  bool reap_load(bool block);
  void stop_load();
  nlohmann::json load_json() const;
  void finish();
  void remove_cgroups();

  const DriverSetup& s_;
  const RunOptions& o_;
  const DriverSystem& sys_;
  unsigned cpu_ = 0, sampler_cpu_ = 0;
  std::optional<RunDir> dir_;
  std::optional<Cgroup> parent_, cg_, load_cg_;
  std::vector<Cgroup> neighbour_cgs_;  // --neighbours: one cgroup each
  nlohmann::json limits_ = nlohmann::json::object();
  Fd ops_fd_, stderr_fd_, samples_fd_;  // ops_fd_: command.stdout for --command
  Fd load_out_fd_, load_err_fd_, load_times_fd_;
  std::optional<LoadPipe> load_pipe_;
  std::unique_ptr<Sampler> sampler_;
  std::unique_ptr<KernelLog> kmsg_;
  Fd trace_fd_;
  std::unique_ptr<trace::Tracer> tracer_;  // --trace
  pid_t workload_ = -1, load_ = -1;
  std::vector<pid_t> neighbours_;
  struct {
    bool started = false;
    uint64_t started_ns = 0, ended_ns = 0;
    std::optional<int> wait_status;
  } load_facts_;
  uint64_t samples_ = 0;
  EndFacts facts_;
  std::optional<bool> sampler_shares_cpu_;  // measured after the workload started
};

Experiment::~Experiment() {
  load_pipe_.reset();  // before the files it writes to close
}

Result<void> Experiment::open_parent() {
  auto parent = Cgroup::open(s_.parent, *sys_.cgroupfs);
  if (!parent)
    return fail(fmt::format("open the parent cgroup: {}", parent.error().message()), {},
                "give --parent a cgroup2 directory you may write to (a delegated cgroup)");
  auto controllers = parent->controllers();
  if (!controllers) return std::unexpected(controllers.error());
  bool memory = std::find(controllers->begin(), controllers->end(), "memory") != controllers->end();
  if (!memory)
    return fail("the memory controller is not available in the parent cgroup",
                s_.parent + "/cgroup.controllers",
                "enable it in its parent's cgroup.subtree_control, or pass --parent");
  auto enabled = (o_.io_rbps || o_.io_wbps) ? parent->enable_controllers({"memory", "io"})
                                            : parent->enable_controllers({"memory"});
  if (!enabled) {
    Error error = enabled.error();
    if (error.err == EBUSY)
      error.hint = "the parent has processes of its own (cgroup v2's no-internal-process rule): "
                   "pass --parent a cgroup that only has children";
    if (error.err == EACCES || error.err == EPERM) error.hint = kNotDelegatedHint;
    return std::unexpected(error);
  }
  // io.stat for the samples, when the io controller is there.
  if (std::find(controllers->begin(), controllers->end(), "io") != controllers->end())
    (void)parent->enable_controllers({"io"});
  parent_.emplace(std::move(*parent));
  return {};
}

Result<Cgroup> Experiment::create_marked(const std::string& name) {
  auto child = parent_->create_child(name);
  if (!child) {
    Error error = child.error();
    if (error.err == EEXIST)
      error.hint = "a cgroup of that name exists: choose another --name, or run `cgmem gc` "
                   "if a killed run left it";
    if (error.err == EACCES || error.err == EPERM) error.hint = kNotDelegatedHint;
    return std::unexpected(error);
  }
  auto marked = set_mark(*sys_.cgroupfs, child->path(), Mark{::getpid(), dir_->path()});
  if (!marked) {
    (void)child->remove();
    return std::unexpected(marked.error());
  }
  return child;
}

Result<void> Experiment::set_limits() {
  struct Row {
    const char* file;
    const char* key;
    const std::optional<Limit>& value;
  };
  namespace key = run_format::limit_key;
  const Row rows[] = {{files::kMemoryMin, key::kMin, o_.min},
                      {files::kMemoryLow, key::kLow, o_.low},
                      {files::kMemoryHigh, key::kHigh, o_.high},
                      {files::kMemoryMax, key::kMax, o_.max},
                      {files::kMemorySwapMax, key::kSwapMax, o_.swap_max},
                      {files::kMemorySwapHigh, key::kSwapHigh, o_.swap_high}};
  for (const auto& row : rows) {
    if (!row.value) continue;
    auto kept = cg_->set_limit(row.file, *row.value);
    if (!kept) return std::unexpected(kept.error());
    limits_[row.key] = limit_json(*kept);
  }
  if (auto ok = set_high_throttle(); !ok) return ok;
  return set_io_limits();
}

Result<void> Experiment::set_high_throttle() {
  if (!o_.high_throttle) return {};
  auto written = cg_->write(files::kMemoryHighThrottle, std::to_string(*o_.high_throttle));
  if (!written) {
    Error error = written.error();
    if (error.err == ENOENT)
      error.hint = "this kernel has no memory.high.throttle (the RFC's patch): boot one with it, e.g. "
                   "cgmem kernel build --hz 1000 --patch memory-high-throttle; cgmem vm --kernel hz1000-throttle";
    return std::unexpected(error);
  }
  limits_[run_format::limit_key::kHighThrottle] = *o_.high_throttle;
  return {};
}

Result<void> Experiment::set_io_limits() {
  if (!o_.io_rbps && !o_.io_wbps) return {};
  auto device = cgroup::io_device_for(dir_->path());
  if (!device)
    return fail(fmt::format("--io-rbps/--io-wbps: find the disk of the run directory: {}",
                            device.error().message()));
  cgroup::IoMax entry{.device = *device};
  if (o_.io_rbps) entry.rbps = Limit::of(*o_.io_rbps);
  if (o_.io_wbps) entry.wbps = Limit::of(*o_.io_wbps);
  auto kept = cg_->set_io_max(entry);
  if (!kept) return std::unexpected(kept.error());
  namespace key = run_format::limit_key;
  limits_[key::kIoDevice] = device->text();
  if (kept->rbps) limits_[key::kIoRbps] = limit_json(*kept->rbps);
  if (kept->wbps) limits_[key::kIoWbps] = limit_json(*kept->wbps);
  return {};
}

Result<void> Experiment::write_meta() {
  namespace key = run_format::meta_key;
  nlohmann::json meta = {
      {key::kSchema, run_format::kSchema},
      {key::kName, o_.name},
      {key::kStartedAt, iso_utc(std::time(nullptr))},
      {key::kStartedMonoNs, facts_.started_ns},
      {key::kCgroup, cg_->path()},
      {key::kLimits, limits_},
      {key::kSpec, spec_json(o_, cpu_, sampler_cpu_)},
      {key::kWorkload, command_run() ? nlohmann::json{{"kind", "command"}, {"argv", o_.command}}
                                     : to_json(s_.workload)},
      {key::kHost, s_.host},
      {key::kCode, s_.code},
      {key::kClaimSha256, nullptr},
  };
  // What the pins gave once the workload runs (the study's key variable);
  // before that, what was asked.
  auto& spec = meta[key::kSpec];
  spec[run_format::spec_key::kSamplerSharesCpu] = sampler_shares_cpu_.value_or(cpu_ == sampler_cpu_);
  spec[run_format::spec_key::kSamplerSharesCpuMeasured] = sampler_shares_cpu_.has_value();
  spec[run_format::spec_key::kKernelLog] = kmsg_->is_open();
  return dir_->write_json(run_format::kMetaFile, meta);
}

Result<void> Experiment::prepare() {
  cpu_ = o_.cpu.value_or(0);
  sampler_cpu_ = o_.sampler_cpu.value_or(default_sampler_cpu(cpu_, s_.machine.cpus));
  auto dir = RunDir::create(s_.run_dir);
  if (!dir) return std::unexpected(dir.error());
  dir_.emplace(std::move(*dir));
  if (auto ok = open_parent(); !ok) return ok;
  auto cg = create_marked(o_.name);
  if (!cg) return std::unexpected(cg.error());
  cg_.emplace(std::move(*cg));
  for (const auto& name : neighbour_cgroup_names(o_.name, o_.neighbour_ns ? o_.neighbours : 0)) {
    auto neighbour = create_marked(name);
    if (!neighbour) return std::unexpected(neighbour.error());
    neighbour_cgs_.push_back(std::move(*neighbour));
  }
  if (!o_.load.empty()) {  // the load's own cgroup: no limits, so it never slows the program's clients
    auto load = create_marked(o_.name + "-load");
    if (!load) return std::unexpected(load.error());
    load_cg_.emplace(std::move(*load));
    auto out = dir_->open_append(run_format::kLoadStdoutFile);
    if (!out) return std::unexpected(out.error());
    load_out_fd_ = std::move(*out);
    auto err = dir_->open_append(run_format::kLoadStderrFile);
    if (!err) return std::unexpected(err.error());
    load_err_fd_ = std::move(*err);
    auto times = dir_->open_append(run_format::kLoadTimesFile);
    if (!times) return std::unexpected(times.error());
    load_times_fd_ = std::move(*times);
    auto pipe = LoadPipe::open(load_out_fd_.get(), load_times_fd_.get());
    if (!pipe) return std::unexpected(pipe.error());
    load_pipe_.emplace(std::move(*pipe));
  }
  if (auto ok = set_limits(); !ok) return ok;
  auto ops = dir_->open_append(command_run() ? run_format::kCommandStdoutFile : run_format::kOpsFile);
  auto err = dir_->open_append(run_format::kWorkloadStderrFile);
  auto samples = dir_->open_append(run_format::kSamplesFile);
  if (!ops || !err || !samples)
    return std::unexpected(!ops ? ops.error() : !err ? err.error() : samples.error());
  ops_fd_ = std::move(*ops), stderr_fd_ = std::move(*err), samples_fd_ = std::move(*samples);
  auto sampler = Sampler::open(cg_->path(), sys_.proc_root);
  if (!sampler) return std::unexpected(sampler.error());
  sampler_ = std::move(*sampler);
  kmsg_ = std::make_unique<KernelLog>(sys_.kmsg);
  return start_trace();
}

// Before the workload and its neighbours start, so their first charges are
// in the trace.
Result<void> Experiment::start_trace() {
  if (!o_.trace) return {};
  auto out = dir_->open_append(run_format::kTraceFile);
  if (!out) return std::unexpected(out.error());
  trace_fd_ = std::move(*out);
  trace::TraceSetup setup{.cgroup2_mount = sys_.cgroup2_mount,
                          .run_cgroup = {.path = cg_->path(), .id = cg_->inode()},
                          .driver_pid = ::getpid(),
                          .out_fd = trace_fd_.get(),
                          .proc_root = sys_.proc_root};
  for (const auto& cg : neighbour_cgs_) setup.neighbour_cgroups.push_back({.path = cg.path(), .id = cg.inode()});
  if (auto hz = s_.host.find("hz"); hz != s_.host.end() && hz->is_number_unsigned()) setup.hz = hz->get<unsigned>();
  auto tracer = trace::Tracer::start(setup);
  if (!tracer) return std::unexpected(tracer.error());
  tracer_ = std::move(*tracer);
  return {};
}

Result<void> Experiment::start() {
  if (o_.neighbour_ns) {  // all of them charging before the workload starts
    auto pids = start_neighbours(neighbour_cgs_, cpu_, *o_.neighbour_ns);
    if (!pids) return std::unexpected(pids.error());
    neighbours_ = std::move(*pids);
  }
  auto before = cg_->memory_events();
  facts_.oom_kill_before = before && before->oom_kill ? *before->oom_kill : 0;
  cgroup::SpawnOptions spawn{.argv = {s_.self_exe, "workload"},
                             .stdout_fd = ops_fd_.get(), .stderr_fd = stderr_fd_.get()};
  spawn.argv.insert(spawn.argv.end(), o_.workload_args.begin(), o_.workload_args.end());
  if (command_run()) spawn.argv = o_.command;
  if (auto pinned = pin_self(cpu_); !pinned) return pinned;  // the workload inherits it
  facts_.started_ns = now_ns();
  if (tracer_) tracer_->set_origin(facts_.started_ns);
  if (auto meta = write_meta(); !meta) return meta;
  auto pid = sys_.spawner->spawn(*cg_, spawn);
  auto sampler_pinned = pin_self(sampler_cpu_);
  if (!pid) return std::unexpected(pid.error());
  workload_ = *pid;
  facts_.started = true;
  if (tracer_) tracer_->keep_pid(workload_);
  if (!sampler_pinned) facts_.errors.push_back(sampler_pinned.error().message());
  sampler_shares_cpu_ = shares_cpu_with(workload_);
  return write_meta();  // again, with what the pins gave
}

bool Experiment::reap_workload(bool block) {
  if (workload_ < 0) return true;
  int status = 0;
  pid_t pid = ::waitpid(workload_, &status, block ? 0 : WNOHANG);
  if (pid != workload_) return false;
  facts_.wait_status = status;
  workload_ = -1;
  return true;
}

void Experiment::stop_workload() {
  if (auto killed = cg_->kill_all(); !killed) facts_.errors.push_back(killed.error().message());
  reap_workload(true);
}

// The load starts at the first tick at which the program is ready: its TCP
// port accepts, or --ready-delay has passed (at once when neither is given).
bool Experiment::load_due(uint64_t now) const {
  if (!load_cg_ || load_facts_.started) return false;
  if (o_.ready_tcp) return tcp_port_accepts(*o_.ready_tcp);
  return now >= facts_.started_ns + o_.ready_delay_ns.value_or(0);
}

// The load runs where the driver runs (the sampler's CPU, not the
// program's), so its allocations do not drain the program's charge stock.
void Experiment::start_load(uint64_t now) {
  load_facts_.started = true;
  load_facts_.started_ns = now;
  cgroup::SpawnOptions spawn{.argv = o_.load, .stdout_fd = load_pipe_->write_end(), .stderr_fd = load_err_fd_.get()};
  auto pid = sys_.spawner->spawn(*load_cg_, spawn);
  load_pipe_->close_write_end();
  if (!pid) {
    facts_.errors.push_back(fmt::format("--load: {}", pid.error().message()));
    facts_.load_failed = true;
    return;
  }
  load_ = *pid;
}

bool Experiment::reap_load(bool block) {
  if (load_ < 0) return false;
  int status = 0;
  if (::waitpid(load_, &status, block ? 0 : WNOHANG) != load_) return false;
  load_facts_.wait_status = status;
  load_facts_.ended_ns = now_ns();
  load_pipe_->drain(load_facts_.ended_ns, facts_.started_ns);  // its last lines
  load_ = -1;
  return true;
}

void Experiment::stop_load() {
  if (load_ < 0) return;
  if (auto killed = load_cg_->kill_all(); !killed) facts_.errors.push_back(killed.error().message());
  reap_load(true);
}

nlohmann::json Experiment::load_json() const {
  auto since_start = [&](uint64_t ns) { return static_cast<double>(ns - facts_.started_ns) / 1e9; };
  namespace key = run_format::load_key;
  nlohmann::json j = {{key::kStarted, load_facts_.started}, {key::kStartedS, nullptr}, {key::kEndedS, nullptr},
                      {key::kExitCode, nullptr}, {key::kSignal, nullptr}};
  if (load_facts_.started) j[key::kStartedS] = since_start(load_facts_.started_ns);
  if (load_facts_.ended_ns) j[key::kEndedS] = since_start(load_facts_.ended_ns);
  if (auto status = load_facts_.wait_status) {
    if (WIFEXITED(*status)) j[key::kExitCode] = WEXITSTATUS(*status);
    if (WIFSIGNALED(*status)) j[key::kSignal] = WTERMSIG(*status);
  }
  return j;
}

// One tick: a line in samples.jsonl, and the progress line when due.
void Experiment::sample(uint64_t now, Progress& progress) {
  auto tick = sampler_->tick(now, samples_fd_.get());
  if (!tick) {
    facts_.errors.push_back(tick.error().message());
    return;
  }
  ++samples_;
  progress.update(now, *tick);
  if (tracer_) tracer_->poll();
}

// The last tick sees the workload as it was; then, if asked, it is killed.
void Experiment::end_loop(uint64_t now, Progress& progress, bool kill) {
  facts_.ended_ns = now;
  sample(now, progress);
  if (kill) stop_workload();
}

void Experiment::loop() {
  Progress progress(s_.progress, dir_->file(run_format::kOpsFile), facts_.started_ns);
  uint64_t cap_at = facts_.started_ns + o_.cap_ns;
  uint64_t next = facts_.started_ns;
  for (;;) {
    bool reaped = reap_workload(false);
    uint64_t now = now_ns();
    if (load_pipe_) load_pipe_->drain(now, facts_.started_ns);
    // Ctrl-C reaches the workload too (same process group): a signal to the
    // driver is an interruption even when the workload died of it first.
    if (g_stop_signal != 0) {
      facts_.interrupted = true;
      return end_loop(now, progress, !reaped);
    }
    if (reaped) return end_loop(now, progress, false);  // the counters after the end
    if (load_due(now)) start_load(now);
    // The load's end (or its failure to start) ends a --command run: a
    // server never ends on its own.
    if (facts_.load_failed || reap_load(false)) {
      facts_.load_finished = !facts_.load_failed;
      return end_loop(now, progress, true);
    }
    if (now >= cap_at) {
      facts_.stopped_at_cap = true;
      return end_loop(now, progress, true);
    }
    if (now >= next) {
      sample(now, progress);
      next += o_.interval_ns;
      if (next <= now) next = now + o_.interval_ns;  // fell behind: skip, never burst
    }
    // Wakes for the load's output too.
    sys_.clock->sleep_until(std::min(next, cap_at), load_pipe_ ? load_pipe_->read_fd() : -1);
  }
}

// Only the cgroups this run created: the run's, its neighbours', its load's.
void Experiment::remove_cgroups() {
  auto remove = [&](const Cgroup& cg) {
    (void)cg.kill_all();
    if (auto empty = cg.wait_empty(std::chrono::seconds(10)); !empty) facts_.errors.push_back(empty.error().message());
    if (auto removed = cg.remove(); !removed) facts_.errors.push_back(removed.error().message());
  };
  if (cg_) remove(*cg_), cg_.reset();
  for (const auto& cg : neighbour_cgs_) remove(cg);
  neighbour_cgs_.clear();
  if (load_cg_) remove(*load_cg_), load_cg_.reset();
}

void Experiment::finish() {
  for (pid_t pid : neighbours_) ::kill(pid, SIGKILL);
  // The SIGCHLD handler has no SA_RESTART: a neighbour's death interrupts
  // the wait for another, which must be waited for again.
  for (pid_t pid : neighbours_) TEMP_FAILURE_RETRY(::waitpid(pid, nullptr, 0));
  neighbours_.clear();
  const std::string& mount = sys_.cgroup2_mount;
  std::string rel = cg_->path().starts_with(mount)
                        ? cg_->path().substr(mount.size())
                        : "/" + o_.name;
  auto lines = kmsg_->collect(rel);
  if (!lines.empty()) {
    std::string text;
    for (const auto& line : lines) text += line + "\n";
    if (auto ok = dir_->write_text(run_format::kKernelLogFile, text); !ok)
      facts_.errors.push_back(ok.error().message());
  }
}

void Experiment::abandon() {
  remove_cgroups();
  if (dir_) {
    namespace rf = run_format;
    tracer_.reset();  // its instance goes before its file
  for (const char* name : {rf::kOpsFile, rf::kCommandStdoutFile, rf::kLoadStdoutFile, rf::kLoadStderrFile,
                             rf::kLoadTimesFile, rf::kWorkloadStderrFile, rf::kSamplesFile, rf::kTraceFile})
      ::unlink(dir_->file(name).c_str());
    dir_->remove_if_empty();  // and runs/ when this run made it
  }
}

RunResult Experiment::run() {
  RunResult result{.run_dir = dir_->path()};
  if (auto started = start(); !started) facts_.errors.push_back(started.error().message());
  if (facts_.started) loop();
  if (!facts_.started) facts_.ended_ns = now_ns();
  stop_load();  // still running when the program ended, was killed or the cap came
  auto events = events_json(*cg_);
  auto peak = cg_->read_counter(files::kMemoryPeak);
  auto oom_kill = events.find("oom_kill");
  if (oom_kill != events.end()) facts_.oom_kill_after = oom_kill->get<uint64_t>();
  finish();
  // The events up to the end, then tracing off (also after SIGINT or a
  // kill); after finish(), as the neighbours (forked, not exec'd) hold the
  // trace's files open until they are gone.
  nlohmann::json trace = tracer_ ? tracer_->stop() : nlohmann::json(nullptr);
  Fd ops_read_fd(::open(dir_->file(run_format::kOpsFile).c_str(), O_RDONLY | O_CLOEXEC));
  OpsTail ops(ops_read_fd.get());
  ops.scan();
  bool had_load = load_cg_.has_value();  // remove_cgroups() resets it
  remove_cgroups();
  result.outcome = classify(facts_);
  result.outcome_json = to_json(result.outcome);
  result.outcome_json[run_format::outcome_key::kEvents] = events;
  result.outcome_json[run_format::outcome_key::kPeakBytes] = peak ? nlohmann::json(*peak) : nlohmann::json(nullptr);
  namespace key = run_format::outcome_key;
  result.outcome_json[key::kOps] = command_run() ? nlohmann::json(nullptr) : nlohmann::json(ops.total_lines());
  result.outcome_json[key::kSamples] = samples_;
  if (had_load) result.outcome_json[key::kLoad] = load_json();
  if (tracer_) result.outcome_json[key::kTrace] = trace;
  if (auto ok = dir_->write_json(run_format::kOutcomeFile, result.outcome_json); !ok)
    result.outcome.errors.push_back(ok.error().message());
  return result;
}

}  // namespace

Result<RunResult> run_experiment(const DriverSetup& setup) {
  SignalScope signals;
  Experiment experiment(setup);
  if (auto prepared = experiment.prepare(); !prepared) {
    experiment.abandon();
    return std::unexpected(prepared.error());
  }
  return experiment.run();
}

}  // namespace cgmem::lab
