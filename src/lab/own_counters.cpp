#include "lab/own_counters.h"

#include <fcntl.h>
#include <unistd.h>

#include <charconv>
#include <fmt/format.h>

#include "cgroup/files.h"
#include "cgroup/flat_keyed.h"
#include "cgroup/mountinfo.h"
#include "cgroup/single_value.h"
#include "proc/self_cgroup.h"

namespace cgmem::lab {
namespace {

constexpr char kHint[] = "run the workload under `cgmem run`, or point --cgroup-dir at a cgroup";

Result<cgroup::FileReader> open_reader(const std::string& dir, const char* name) {
  auto reader = cgroup::FileReader::open(dir + "/" + name);
  if (!reader) {
    Error error = reader.error();
    error.hint = kHint;
    return std::unexpected(error);
  }
  return reader;
}

// A swap device in /proc/swaps (its first line is the header).
bool host_has_swap() {
  auto text = cgroup::read_text("/proc/swaps");
  if (!text) return false;
  size_t header = text->find('\n');
  return header != std::string::npos && text->find_first_not_of(" \n", header) != std::string::npos;
}

}  // namespace

Result<std::string> cgroup2_mount() {
  auto text = cgroup::read_text("/proc/self/mountinfo");
  if (!text) return std::unexpected(text.error());
  auto mount = cgroup::cgroup2_mount(cgroup::parse_mountinfo(*text));
  if (!mount)
    return fail("no cgroup2 file system is mounted (/proc/self/mountinfo)", {},
                "mount one (mount -t cgroup2 none /sys/fs/cgroup), or run in `cgmem vm`");
  return *mount;
}

Result<std::string> own_cgroup_dir(const std::string& mount, std::string_view text) {
  auto parsed = proc::parse_proc_cgroup(text, "/proc/self/cgroup");
  if (!parsed) return std::unexpected(parsed.error());
  auto path = parsed->v2_path();
  if (!path) return fail("/proc/self/cgroup has no cgroup v2 line (0::PATH)", {}, kHint);
  return *path == "/" ? mount : mount + *path;
}

Result<OwnCounters> OwnCounters::open(const std::string& dir, bool writable_high) {
  OwnCounters counters;
  counters.dir_ = dir;
  auto current = open_reader(dir, cgroup::files::kMemoryCurrent);
  if (!current) return std::unexpected(current.error());
  counters.current_.emplace(std::move(*current));
  auto events = open_reader(dir, cgroup::files::kMemoryEvents);
  if (!events) return std::unexpected(events.error());
  counters.events_.emplace(std::move(*events));
  if (host_has_swap()) {
    auto swap = cgroup::FileReader::open(dir + "/" + cgroup::files::kMemorySwapCurrent);
    auto swap_events = cgroup::FileReader::open(dir + "/" + cgroup::files::kMemorySwapEvents);
    if (swap && swap_events) {
      counters.swap_current_.emplace(std::move(*swap));
      counters.swap_events_.emplace(std::move(*swap_events));
    }
  }
  if (writable_high) {
    std::string path = dir + "/" + cgroup::files::kMemoryHigh;
    counters.high_fd_ = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (counters.high_fd_ < 0) return sys_error("open for writing", path, kHint);
  }
  return counters;
}

Result<Counters> OwnCounters::read() {
  Counters out;
  auto current = current_->read_raw(buffer_);
  auto value = current ? cgroup::parse_counter_value(*current) : std::nullopt;
  if (!current) return sys_error("read", current_->path());
  if (!value) return fail("memory.current is not a number", current_->path());
  out.current = *value;
  auto events = events_->read_raw(buffer_);
  if (!events) return sys_error("read", events_->path());
  auto high = cgroup::flat_value(*events, "high");
  auto max = cgroup::flat_value(*events, "max");
  if (!high || !max) return fail("memory.events has no high or max counter", events_->path());
  out.high = *high;
  out.max = *max;
  if (!swap_current_) return out;
  auto swap = swap_current_->read_raw(buffer_);
  if (!swap) return sys_error("read", swap_current_->path());
  auto swap_value = cgroup::parse_counter_value(*swap);
  if (!swap_value) return fail("memory.swap.current is not a number", swap_current_->path());
  auto swap_events = swap_events_->read_raw(buffer_);
  if (!swap_events) return sys_error("read", swap_events_->path());
  auto swap_high = cgroup::flat_value(*swap_events, "high");
  if (!swap_high) return fail("memory.swap.events has no high counter", swap_events_->path());
  out.has_swap = true;
  out.swap = *swap_value;
  out.swap_high = *swap_high;
  return out;
}

Result<void> OwnCounters::set_high(uint64_t bytes) {
  char text[24];
  auto [end, ec] = std::to_chars(text, text + sizeof text, bytes);
  if (::write(high_fd_, text, static_cast<size_t>(end - text)) < 0)
    return sys_error(fmt::format("write {} to memory.high", bytes),
                     dir_ + "/" + cgroup::files::kMemoryHigh);
  return {};
}

}  // namespace cgmem::lab
