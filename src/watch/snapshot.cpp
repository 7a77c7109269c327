#include "watch/snapshot.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <fmt/format.h>

#include "cgroup/reader.h"
#include "common/file.h"
#include "common/json_get.h"
#include "common/text.h"

namespace cgmem::watch {
namespace {

// A file the snapshot writes, in a directory it made itself below OUT:
// created fresh (O_EXCL: a pid two cgroups list is copied once), never
// through a symlink.
Result<void> write_at(int dir_fd, const char* name, std::string_view text, const std::string& display) {
  Fd fd(::openat(dir_fd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644));
  if (!fd.valid() && errno == EEXIST) return {};
  if (!fd.valid()) return sys_error("create the snapshot file", display, "check that the directory is writable");
  if (!write_all(fd.get(), text)) return sys_error("write the snapshot file", display, "is there room on that disk?");
  return {};
}

// Copies one file of at most max_bytes. One that vanished or cannot be read
// is left out, as the scan leaves it out; one that is not a regular file or
// is longer than a scan reads is an error that says so.
Result<void> copy_at(int from_dir, const char* name, int to_dir, uint64_t max_bytes, const std::string& display) {
  auto text = cgroup::read_text_at(from_dir, name, display, max_bytes);
  if (!text && text.error().err == 0) return std::unexpected(text.error());
  if (!text) return {};
  return write_at(to_dir, name, *text, display);
}

// A pid as cgroup.procs gives it: decimal digits, at most pid_max (2^22).
// Nothing else in the file names a directory of the snapshot.
std::optional<uint32_t> pid_of(std::string_view line) {
  if (line.empty() || line.size() > 7 || line.find_first_not_of("0123456789") != std::string_view::npos)
    return std::nullopt;
  auto pid = to_u64(line);
  if (!pid || *pid == 0 || *pid > (uint64_t{1} << 22)) return std::nullopt;
  return uint32_t(*pid);
}

// PROC/PID/{stat,wchan} of each pid in procs, into OUT/proc/PID.
Result<void> copy_tasks(std::string_view procs, int proc_dir, int out_proc, const std::string& proc_root) {
  while (!procs.empty()) {
    auto pid = pid_of(trim(next_line(procs)));
    if (!pid) continue;
    std::string name = std::to_string(*pid);
    Fd from = open_dir_beneath(proc_dir, name);
    if (!from.valid()) continue;  // exited since
    Fd to = open_dir_beneath(out_proc, name, true);
    if (!to.valid()) return sys_error("create the snapshot directory", "proc/" + name);
    for (const char* file : {"stat", "wchan"})
      if (auto r = copy_at(from.get(), file, to.get(), kFileText, proc_root + "/" + name + "/" + file); !r)
        return r;
  }
  return {};
}

}  // namespace

Result<void> copy_sample(const Scanner& scanner, std::span<const Row> rows, int out_fd, const std::string& sample,
                         const std::string& proc_root) {
  const std::string& root = scanner.options().root;
  Fd proc_dir(::open(proc_root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  Fd out_proc = open_dir_beneath(out_fd, sample + "/proc", true);
  if (!out_proc.valid()) return sys_error("create the snapshot directory", sample + "/proc");
  for (const Row& row : rows) {
    if (row.state == State::gone) continue;
    std::string rel = row.path == "/" ? "" : std::string(row.path);
    Fd from = scanner.open_cgroup_dir(rel);
    if (!from.valid()) continue;  // removed since the scan
    // Row paths are names getdents gave (never "." or "..", never a '/'); made
    // one at a time below OUT all the same.
    Fd to = open_dir_beneath(out_fd, sample + rel, true);
    if (!to.valid()) return sys_error("create the snapshot directory", sample + rel);
    for (const char* name : kFileNames)
      if (auto r = copy_at(from.get(), name, to.get(), kFileText, root + rel + "/" + name); !r) return r;
    if (auto r = write_at(to.get(), "cgmem.inode", std::to_string(row.id) + "\n", sample + rel + "/cgmem.inode"); !r)
      return r;
    std::string procs_path = root + rel + "/cgroup.procs";
    auto procs = cgroup::read_text_at(from.get(), cgroup::files::kCgroupProcs, procs_path);
    if (!procs && procs.error().err == 0) return std::unexpected(procs.error());
    if (!procs) continue;
    if (auto r = write_at(to.get(), cgroup::files::kCgroupProcs, *procs, procs_path); !r) return r;
    if (proc_dir.valid())
      if (auto r = copy_tasks(*procs, proc_dir.get(), out_proc.get(), proc_root); !r) return r;
  }
  return {};
}

Result<void> write_snapshot_meta(const std::string& dir, const SnapshotMeta& m) {
  Json samples = Json::array();
  for (int i = 0; i < 2; ++i)
    samples.push_back({{"dir", std::to_string(i)}, {"t_ns", m.t_ns[i]}, {"unix_time", m.unix_time[i]}});
  Json j = {{"schema", kSnapshotSchema},
            {"root", m.root},
            {"kernel", m.kernel},
            {"hz", m.kernel_facts.hz},
            {"hz_source", m.hz_source},
            {"page_size", m.kernel_facts.page_size},
            {"samples", samples}};
  return write_file(dir + "/snapshot.json", j.dump(2) + "\n");
}

namespace {

// snapshot.json is a few hundred bytes; this bound leaves room for any root path.
constexpr uint64_t kMaxSnapshotJson = 1 << 20;

// What is wrong with a snapshot.json, said in a few words.
template <typename T>
using Checked = std::expected<T, std::string>;

std::string shown(const Json* v) { return v ? v->dump() : "missing"; }

// A whole number in [lo, hi], or a message naming the key and what it should be.
Checked<uint64_t> whole_in(const Json& j, const char* key, uint64_t lo, uint64_t hi, std::string_view expected) {
  auto v = get_u64(j, key);
  if (!v || *v < lo || *v > hi)
    return std::unexpected(fmt::format("{} is {}, not {}", key, shown(json_child(j, key)), expected));
  return *v;
}

Checked<SnapshotMeta> meta_from(const Json& j) {
  if (!j.is_object()) return std::unexpected("it is not a JSON object");
  if (get_u64(j, "schema") != kSnapshotSchema)
    return std::unexpected(fmt::format("schema {} is not {}", shown(json_child(j, "schema")), kSnapshotSchema));
  SnapshotMeta m;
  auto root = get_str(j, "root");
  if (!root) return std::unexpected("root is " + shown(json_child(j, "root")) + ", not a path");
  m.root = *root;
  m.kernel = get_str(j, "kernel").value_or("");
  m.hz_source = get_str(j, "hz_source").value_or("");
  // The checks meta.json's host facts get (report/read_run.cpp): the model divides by both.
  auto hz = whole_in(j, "hz", model::kMinHz, model::kMaxHz, model::kHzRange);
  if (!hz) return std::unexpected(hz.error());
  m.kernel_facts.hz = uint32_t(*hz);
  auto page = whole_in(j, "page_size", model::kMinPageSize, model::kMaxPageSize, model::kPageSizeRange);
  if (!page) return std::unexpected(page.error());
  if (!model::plausible_page_size(*page))
    return std::unexpected(fmt::format("page_size is {}, not {}", *page, model::kPageSizeRange));
  m.kernel_facts.page_size = *page;
  const Json* samples = json_child(j, "samples");
  if (!samples || !samples->is_array() || samples->size() != 2)
    return std::unexpected("it needs 2 samples, it has " +
                           std::to_string(samples && samples->is_array() ? samples->size() : 0));
  for (size_t i = 0; i < 2; ++i) {
    auto t = whole_in((*samples)[i], "t_ns", 0, UINT64_MAX, "a time in nanoseconds");
    if (!t) return std::unexpected(t.error());
    auto unix_time = get_f64((*samples)[i], "unix_time");
    if (!unix_time) return std::unexpected("unix_time is " + shown(json_child((*samples)[i], "unix_time")) + ", not a time in seconds");
    m.t_ns[i] = *t;
    m.unix_time[i] = *unix_time;
  }
  if (m.t_ns[1] <= m.t_ns[0]) return std::unexpected("its second sample is not later than its first");
  return m;
}

}  // namespace

Result<SnapshotMeta> read_snapshot_meta(const std::string& dir) {
  auto text = read_file(dir + "/snapshot.json", "the snapshot", kMaxSnapshotJson);
  if (!text) {
    Error e = text.error();
    e.hint = "give a directory written by `cgmem watch --snapshot OUT`";
    return std::unexpected(e);
  }
  return parse_snapshot_meta(*text, dir + "/snapshot.json");
}

Result<SnapshotMeta> parse_snapshot_meta(std::string_view text, const std::string& path) {
  auto j = Json::parse(text, nullptr, false);
  auto m = j.is_discarded() ? Checked<SnapshotMeta>(std::unexpected("it is not JSON")) : meta_from(j);
  if (!m)
    return fail("read the snapshot: " + m.error(), path,
                "the file is damaged; take a new one with `cgmem watch --snapshot OUT`");
  return *m;
}

Result<Replay> replay_snapshot(const std::string& dir, ScanOptions o, bool override_hz) {
  auto meta = read_snapshot_meta(dir);
  if (!meta) return std::unexpected(meta.error());
  // The two reads are directories of the snapshot itself, never links out of it.
  for (const char* sample : {"0", "1"}) {
    struct stat st{};
    if (::lstat((dir + "/" + sample).c_str(), &st) != 0) return sys_error("read the snapshot", dir + "/" + sample);
    if (!S_ISDIR(st.st_mode))
      return fail("read the snapshot: " + dir + "/" + sample + " is " + file_kind(st.st_mode) + ", not a directory",
                  "", "the snapshot is damaged; take a new one with `cgmem watch --snapshot OUT`");
  }
  uint32_t hz = o.kernel.hz;
  o.root = dir + "/0";
  o.proc_root = dir + "/0/proc";
  o.identity = Identity::saved;
  o.events = false;
  o.kernel = meta->kernel_facts;
  // The saved host's rules, by its release (the slots of a patched kernel are not saved).
  if (auto v = model::parse_kernel_version(meta->kernel)) o.kernel.rules = model::rules_for(*v);
  if (override_hz) o.kernel.hz = hz;
  auto scanner = Scanner::open(std::move(o));
  if (!scanner) return std::unexpected(scanner.error());
  if (auto first = (*scanner)->scan(meta->t_ns[0]); !first) return std::unexpected(first.error());
  if (auto r = (*scanner)->rebase(dir + "/1", dir + "/1/proc"); !r) return std::unexpected(r.error());
  auto rows = (*scanner)->scan(meta->t_ns[1]);
  if (!rows) return std::unexpected(rows.error());
  return Replay{std::move(*scanner), {rows->begin(), rows->end()}, std::move(*meta)};
}

}  // namespace cgmem::watch
