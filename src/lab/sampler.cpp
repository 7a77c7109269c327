#include "lab/sampler.h"

#include <fcntl.h>
#include <unistd.h>

#include <charconv>
#include <array>
#include <cstring>
#include <fmt/format.h>

#include "cgroup/files.h"
#include "cgroup/flat_keyed.h"
#include "cgroup/nested_keyed.h"
#include "cgroup/pressure.h"
#include "cgroup/single_value.h"
#include "common/text.h"
#include "common/file.h"
#include "proc/stat.h"
#include "proc/wchan.h"
#include "run_format/run_format.h"

namespace cgmem::lab {

namespace sample_key = run_format::sample_key;
namespace {

namespace files = cgroup::files;

// Opens /proc/PID/NAME into a stack buffer path: no heap allocation.
int open_proc_file(const std::string& proc_root, pid_t pid, const char* name) {
  char path[256];
  auto written = fmt::format_to_n(path, sizeof path - 1, "{}/{}/{}", proc_root, pid, name);
  *written.out = '\0';
  return ::open(path, O_RDONLY | O_CLOEXEC);
}

std::optional<std::string_view> pread_fd(int fd, std::span<char> buffer) {
  if (fd < 0) return std::nullopt;
  ssize_t n = ::pread(fd, buffer.data(), buffer.size(), 0);
  if (n < 0) return std::nullopt;
  return std::string_view(buffer.data(), static_cast<size_t>(n));
}

void emit_pressure_line(JsonLine& line, std::string_view kind, const cgroup::PressureLine& p) {
  line.key(kind).open();
  line.key("avg10").f64(p.avg10).key("avg60").f64(p.avg60).key("avg300").f64(p.avg300);
  line.field("total", p.total_usec).close();
}

}  // namespace

Result<std::unique_ptr<Sampler>> Sampler::open(const std::string& dir,
                                               const std::string& proc_root) {
  std::unique_ptr<Sampler> s(new Sampler());
  s->dir_ = dir;
  s->proc_root_ = proc_root;
  struct Spec {
    const char* name;
    const char* json_key;
    Kind kind;
  };
  static constexpr Spec kSpecs[] = {
      {files::kMemoryCurrent, sample_key::kMemoryCurrent, Kind::counter},
      {files::kMemoryPeak, sample_key::kMemoryPeak, Kind::counter},
      {files::kMemoryEvents, sample_key::kMemoryEvents, Kind::flat},
      {files::kMemoryEventsLocal, sample_key::kMemoryEventsLocal, Kind::flat},
      {files::kMemoryPressure, sample_key::kMemoryPressure, Kind::pressure},
      {files::kIoPressure, sample_key::kIoPressure, Kind::pressure},
      {files::kMemoryStat, sample_key::kMemoryStat, Kind::flat},
      {files::kCpuStat, sample_key::kCpuStat, Kind::flat},
      {files::kIoStat, sample_key::kIoStat, Kind::nested},
      {files::kMemorySwapCurrent, sample_key::kMemorySwapCurrent, Kind::counter},
      {files::kMemorySwapEvents, sample_key::kMemorySwapEvents, Kind::flat},
      {files::kMemoryZswapCurrent, sample_key::kMemoryZswapCurrent, Kind::counter},
  };
  static_assert(std::size(kSpecs) == kMaxFiles);
  s->files_.reserve(std::size(kSpecs));
  for (const auto& spec : kSpecs) {
    auto& file = s->files_.emplace_back(File{spec.name, spec.json_key, spec.kind, std::nullopt});
    auto reader = cgroup::FileReader::open(dir + "/" + spec.name);
    if (reader) file.reader.emplace(std::move(*reader));
  }
  if (!s->files_[0].reader)
    return fail("cannot sample the cgroup: memory.current is missing", dir,
                "is the memory controller enabled in the parent's cgroup.subtree_control?");
  auto procs = cgroup::FileReader::open(dir + "/" + files::kCgroupProcs);
  if (!procs) return std::unexpected(procs.error());
  s->procs_reader_.emplace(std::move(*procs));
  return s;
}

int Sampler::emit_file(File& file, TickSummary& summary) {
  auto text = file.reader->read_raw(read_buffer_);
  if (!text) return errno != 0 ? errno : EIO;
  switch (file.kind) {
    case Kind::counter: {
      auto value = cgroup::parse_counter_value(*text);
      if (!value) return EINVAL;
      line_.field(file.json_key, *value);
      if (file.name == files::kMemoryCurrent) summary.current = *value, summary.read_current = true;
      return 0;
    }
    case Kind::flat: {
      // Every key the kernel wrote goes into the line.
      line_.key(file.json_key).open();
      cgroup::for_each_flat(*text, [&](std::string_view key, uint64_t value) { line_.field(key, value); });
      line_.close();
      if (file.name == files::kMemoryEvents) cgroup::parse_event_counts(summary.events, *text);
      return 0;
    }
    case Kind::pressure: {
      auto pressure = cgroup::parse_pressure_lines(*text);
      line_.key(file.json_key).open();
      if (pressure.some) emit_pressure_line(line_, "some", *pressure.some);
      if (pressure.full) emit_pressure_line(line_, "full", *pressure.full);
      line_.close();
      return 0;
    }
    case Kind::nested: {
      // One object per device: {"254:0":{"rbytes":...}}. Lines are whole
      // devices, so a new device starts a new object.
      line_.key(file.json_key).open();
      char current[24] = {};
      bool open_device = false;
      cgroup::for_each_nested(*text, [&](cgroup::DeviceId device, std::string_view key,
                                         std::string_view value) {
        char name[24];
        auto end = fmt::format_to_n(name, sizeof name - 1, "{}:{}", device.major, device.minor);
        *end.out = '\0';
        if (!open_device || std::string_view(name) != current) {
          if (open_device) line_.close();
          line_.key(name).open();
          std::copy(name, name + sizeof name, current);
          open_device = true;
        }
        if (auto number = to_u64(value)) line_.field(key, *number);
      });
      if (open_device) line_.close();
      line_.close();
      return 0;
    }
  }
  return 0;
}

// Keeps the table in step with cgroup.procs: opens the files of a pid seen
// for the first time, closes those of a pid that left.
void Sampler::update_procs(std::string_view pid_list) {
  for (unsigned i = 0; i < nprocs_; ++i) procs_[i].seen = false;
  while (!pid_list.empty()) {
    auto pid = to_u64(trim_end(next_line(pid_list)));
    if (!pid) continue;
    unsigned i = 0;
    while (i < nprocs_ && procs_[i].pid != static_cast<pid_t>(*pid)) ++i;
    if (i == nprocs_) {
      if (nprocs_ == kMaxProcs) continue;
      Proc& fresh = procs_[nprocs_++];
      fresh.pid = static_cast<pid_t>(*pid);
      fresh.stat_fd.reset(open_proc_file(proc_root_, fresh.pid, "stat"));
      fresh.wchan_fd.reset(open_proc_file(proc_root_, fresh.pid, "wchan"));
    }
    procs_[i].seen = true;
  }
  for (unsigned i = 0; i < nprocs_;) {
    if (procs_[i].seen) {
      ++i;
      continue;
    }
    procs_[i] = std::move(procs_[--nprocs_]);  // closes the leaver's files
    procs_[nprocs_] = Proc{};
  }
}

void Sampler::emit_proc(const Proc& proc) {
  auto stat_text = pread_fd(proc.stat_fd.get(), read_buffer_);
  line_.element().open().field_i(sample_key::kPid, proc.pid);
  if (stat_text) {
    // Allocates only when the text is malformed (then the fields are left out).
    if (auto stat = proc::parse_proc_stat(*stat_text)) {
      line_.field_str(sample_key::kState, std::string_view(&stat->state, 1))
          .field(sample_key::kUtimeTicks, stat->utime_ticks)
          .field(sample_key::kStimeTicks, stat->stime_ticks)
          .field_i(sample_key::kCpu, stat->processor);
    }
  }
  // wchan: "mem_cgroup_handle_over_high" while asleep there, "" when running.
  if (auto wchan = pread_fd(proc.wchan_fd.get(), read_buffer_))
    line_.field_str(sample_key::kWchan, proc::parse_wchan(*wchan));
  line_.close();
}

void Sampler::emit_procs() {
  line_.key(sample_key::kProcs).open_array();
  for (unsigned i = 0; i < nprocs_; ++i) emit_proc(procs_[i]);
  line_.close_array();
}

Result<TickSummary> Sampler::tick(uint64_t t_ns, int out_fd) {
  TickSummary summary;
  line_.clear();
  line_.open().field(sample_key::kTNs, t_ns);
  // A file that could not be read is named with its errno, never dropped
  // from the line silently (docs/run-format.md, read_errors).
  std::array<std::pair<const char*, int>, kMaxFiles + 1> failed{};
  size_t nfailed = 0;
  for (auto& file : files_)
    if (file.reader)
      if (int err = emit_file(file, summary); err != 0) failed[nfailed++] = {file.name, err};
  if (auto pids = procs_reader_->read_raw(read_buffer_)) update_procs(*pids);
  else failed[nfailed++] = {files::kCgroupProcs, errno != 0 ? errno : EIO};
  summary.procs = nprocs_;
  summary.read_errors = static_cast<unsigned>(nfailed);
  emit_procs();
  if (nfailed != 0) {
    line_.key(sample_key::kReadErrors).open();
    for (size_t i = 0; i < nfailed; ++i) {
      const char* name = ::strerrorname_np(failed[i].second);
      line_.field_str(failed[i].first, name ? name : "E?");
    }
    line_.close();
  }
  line_.close().newline();
  if (!line_.ok()) return fail("a sample line did not fit its 64 KiB buffer", dir_);
  if (auto written = write_all(out_fd, line_.view()); !written) return std::unexpected(written.error());
  return summary;
}

}  // namespace cgmem::lab
