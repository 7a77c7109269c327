#include "watch/scanner.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/inotify.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <linux/magic.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <climits>
#include <array>
#include <unordered_map>

#include <fmt/format.h>

#include "common/clock.h"
#include "common/file.h"
#include "cgroup/reader.h"
#include "common/text.h"

namespace cgmem::watch {

struct Scanner::Entry {
  std::string rel;   // "/" for the root, else "/a/b"
  uint64_t id = 0;
  int depth = 0;
  Fd dir_fd;  // held for the root and cgroups with children, while the budget allows
  std::array<Fd, kFileCount> fds;  // held descriptors; the others are opened for each read
  // bit(File): not there when first read (memory.swap.* without swap
  // accounting, zswap without CONFIG_ZSWAP): a cgroup's files come and go
  // with it and its memory controller, so they are not tried again.
  uint32_t absent = 0;
  bool files_tried = false;  // open_files ran
  bool matched = false;   // the path matches options.match
  bool reported = false;  // matched and memory.current is there
  bool removed = false;   // reported gone: dropped at the next scan
  bool inner = false;     // a child with a row was seen in this scan
  Entry* parent = nullptr;
  uint64_t seen = 0;      // generation of the last walk that found it
  uint64_t event_seen = 0;
  int wd = -1;      // inotify on memory.events
  int dir_wd = -1;  // inotify on the directory (IN_CREATE)
  bool has_prev = false;
  Sample prev;
  uint64_t refresh_ns = 0;  // a quiet read is not taken from then on (0: not yet read in full)
  uint64_t moved_ns = 0;    // the last read in full because a sentinel moved
  bool quiet = false;       // the last read was quiet
  // Created after the scanner's first scan: its counters all started at 0
  // since the previous scan, so its first sample has rates from zero (a
  // cgroup created and OOM-killed between two scans is oom_killed).
  bool born = false;

  std::string_view name() const { return std::string_view(rel).substr(rel.rfind('/') + 1); }
  size_t files_held() const {
    return size_t(std::count_if(fds.begin(), fds.end(), [](const Fd& fd) { return fd.valid(); }));
  }
};

struct Scanner::Index {
  std::unordered_map<uint64_t, Entry*> by_id;
  std::unordered_map<int, Entry*> by_wd;
  std::unordered_map<int, Entry*> by_dir_wd;
};

namespace {

constexpr size_t kReserveFds = 128;  // stdout, inotify, /proc reads, the caller's own
// Files are kept open only while this many descriptors stay free for the
// directories of cgroups with children found later (a walk lists them).
constexpr size_t kDirHeadroom = 256;
constexpr size_t kSentinelCount = std::popcount(kSentinelFiles);

bool is_sentinel(File f) { return kSentinelFiles & bit(f); }

// The files of a read, sentinels first: a quiet read stops after them.
constexpr std::array<File, kFileCount> kReadOrder = {
    File::current,      File::events,      File::memory_pressure, File::high,       File::max,
    File::events_local, File::stat,        File::io_pressure,     File::swap_current, File::swap_max,
    File::swap_high,    File::swap_events, File::zswap_current};

// The sentinels read now are what the last full read saw: same values, same
// files read and failed.
bool sentinels_still(const Sample& before, const Sample& now) {
  auto bits = [](const Sample& s) {
    return std::array{s.read & kSentinelFiles, s.malformed & kSentinelFiles, s.unreadable & kSentinelFiles};
  };
  return bits(before) == bits(now) && before.current == now.current && before.events == now.events;
}

// The first refresh of a cgroup falls somewhere in one period, by its id, so
// that quiet cgroups found together are not all read in full at one scan.
uint64_t first_refresh(uint64_t now_ns, uint64_t period_ns, uint64_t id) {
  return now_ns + (id * 0x9E3779B97F4A7C15ull >> 11) % period_ns;
}

// Raises the soft open-file limit as far as allowed (to the hard limit; as
// root, the hard limit too, up to fs.nr_open) and returns the soft limit.
size_t raise_fd_limit(size_t wanted) {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0) return 1024;
  if (limit.rlim_max != RLIM_INFINITY && limit.rlim_max < wanted) {
    rlimit bigger{wanted, wanted};
    if (::setrlimit(RLIMIT_NOFILE, &bigger) == 0) return wanted;
  }
  limit.rlim_cur = limit.rlim_max == RLIM_INFINITY ? wanted : limit.rlim_max;
  ::setrlimit(RLIMIT_NOFILE, &limit);
  ::getrlimit(RLIMIT_NOFILE, &limit);
  return limit.rlim_cur;
}

// The id a snapshot saved for the directory (Identity::saved): one number,
// so a file that fills the buffer is not one.
std::optional<uint64_t> saved_id(int dir_fd) {
  std::array<char, 32> buffer;
  Fd fd = open_tree_file(dir_fd, "cgmem.inode");
  if (!fd.valid()) return std::nullopt;
  ssize_t n = ::pread(fd.get(), buffer.data(), buffer.size(), 0);
  if (n <= 0 || size_t(n) == buffer.size()) return std::nullopt;
  return parse_saved_id(std::string_view(buffer.data(), size_t(n)));
}

// A subdirectory, never through a symlink (a copied tree may hold one where a
// cgroup was).
int open_subdir(int dir_fd, const char* name) {
  return ::openat(dir_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

// True when the cgroup shows something worth listing its tasks for.
bool under_pressure(const Rates& r) {
  return r.rise.high || r.rise.max || r.rise.oom_kill || r.swap_rise.high || r.refaults_per_s > 0 ||
         r.memory_some > 0.01 || r.io_some > 0.05;
}

}  // namespace

std::optional<uint64_t> parse_saved_id(std::string_view text) noexcept { return to_u64(trim_end(text)); }

Scanner::Scanner(ScanOptions options)
    : options_(std::move(options)),
      dirents_(32768),
      text_(kFileText),
      events_(16384),
      index_(std::make_unique<Index>()) {}

Scanner::~Scanner() = default;

Result<std::unique_ptr<Scanner>> Scanner::open(ScanOptions options) {
  std::unique_ptr<Scanner> s(new Scanner(std::move(options)));
  const std::string& root = s->options_.root;
  auto e = std::make_unique<Entry>();
  e->dir_fd.reset(::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!e->dir_fd.valid())
    return sys_error("open the cgroup tree to watch", root,
                     "give --root a cgroup2 directory you can read; `cgmem host` shows the mount");
  struct stat st{};
  if (::fstat(e->dir_fd.get(), &st) != 0) return sys_error("stat the cgroup tree to watch", root);
  struct statfs fs{};
  s->cgroupfs_ = ::fstatfs(e->dir_fd.get(), &fs) == 0 && fs.f_type == CGROUP2_SUPER_MAGIC;
  e->id = st.st_ino;
  if (s->options_.identity == Identity::saved) {
    e->id = saved_id(e->dir_fd.get()).value_or(e->id);
    s->options_.full_read_every_ns = 0;  // copies differ where the sentinels may not
  }
  e->rel.assign(1, '/');  // (not = "/": g++ 12 -O3 warns -Wrestrict on it)
  if (s->options_.events) {
    s->inotify_fd_.reset(::inotify_init1(IN_NONBLOCK | IN_CLOEXEC));
    if (!s->inotify_fd_.valid()) return sys_error("start inotify for memory.events", root);
    s->watch_dir(*e);
  }
  s->fd_budget_ = raise_fd_limit(1 << 20);
  s->fd_budget_ = s->fd_budget_ > kReserveFds ? s->fd_budget_ - kReserveFds : 0;
  if (s->options_.max_open_files) s->fd_budget_ = std::min(s->fd_budget_, s->options_.max_open_files);
  s->dirs_held_ = 1;
  s->index_->by_id.emplace(e->id, e.get());
  s->entries_.push_back(std::move(e));
  return s;
}

int Scanner::event_fd() const { return inotify_fd_.get(); }

std::string Scanner::path_of(const Entry& e) const { return e.rel == "/" ? options_.root : options_.root + e.rel; }

// The cgroup's directory: its own descriptor while the budget allowed one,
// else opened again below the root for this read (held by `scratch`).
int Scanner::dir_of(const Entry& e, Fd& scratch) {
  if (e.dir_fd.valid()) return e.dir_fd.get();
  scratch = open_dir_beneath(entries_[0]->dir_fd.get(), e.rel);
  if (!scratch.valid() && (errno == EMFILE || errno == ENFILE)) ++stats_.skipped;
  return scratch.get();
}

Fd Scanner::open_cgroup_dir(std::string_view rel) const { return open_dir_beneath(entries_[0]->dir_fd.get(), rel); }

// Keeps the directory open when the budget allows (a tree with more cgroups
// than ulimit -n is read all the same, a little slower). False: closed.
bool Scanner::hold_dir(Entry& e) {
  if (!e.dir_fd.valid()) return false;
  if (dirs_held_ + files_held_ < fd_budget_) return ++dirs_held_, true;
  e.dir_fd.reset();
  return false;
}

// One control file of E, without a held descriptor: through its directory
// when held, else in one openat2 below the root (a path too long for one,
// in a saved tree, through its directory opened one name at a time).
Fd Scanner::open_file(const Entry& e, File f, unsigned* mode) {
  const char* name = kFileNames[size_t(f)];
  if (e.dir_fd.valid()) return open_tree_file(e.dir_fd.get(), name, mode);
  char rel[PATH_MAX];
  auto out = fmt::format_to_n(rel, sizeof rel - 1, "{}/{}", std::string_view(e.rel).substr(1), name);
  if (out.size < sizeof rel - 1)
    return open_tree_file_beneath(entries_[0]->dir_fd.get(), std::string_view(rel, out.size), cgroupfs_, mode);
  Fd scratch;
  return open_tree_file(dir_of(e, scratch), name, mode);
}

// Runs after a walk has opened every directory, so directories come first
// and files take what the descriptor budget leaves.
void Scanner::open_files(Entry& e) {
  if (!e.files_tried) e.matched = options_.match.search(e.rel);
  e.files_tried = true;
  if (!e.matched) return;
  if (options_.max_rows && rows_held_ >= options_.max_rows) {
    ++stats_.dropped;  // not reported: tried again next scan, when a place may be free
    return;
  }
  // No memory.current: the memory controller is off here (or the root); tried again next scan.
  Fd current = open_file(e, File::current);
  // There but not readable (not a regular file, a link, no permission): a
  // row all the same, shown as unknown, its files opened afresh each scan.
  bool there = current.valid() || (errno != ENOENT && !vanished_errno(errno));
  e.reported = there;
  if (!e.reported) return;
  ++rows_held_;
  // The sentinels are held first: the other files only in what is left (read_file).
  if (current.valid() && dirs_held_ + files_held_ + kSentinelCount + kDirHeadroom <= fd_budget_) {
    e.fds[size_t(File::current)] = std::move(current);
    ++files_held_;
    if ((e.fds[size_t(File::events)] = open_file(e, File::events)).valid()) ++files_held_;
  }
  if (e.reported && inotify_fd_.valid() && e.wd < 0) {
    std::string events = path_of(e) + "/" + kFileNames[size_t(File::events)];
    e.wd = ::inotify_add_watch(inotify_fd_.get(), events.c_str(), IN_MODIFY | IN_DONT_FOLLOW);
    if (e.wd >= 0) index_->by_wd[e.wd] = &e;
    else ++stats_.watch_failures;
  }
}

// Watches a directory for new subdirectories, within --depth.
void Scanner::watch_dir(Entry& e) {
  if (!inotify_fd_.valid() || (options_.max_depth >= 0 && e.depth >= options_.max_depth)) return;
  e.dir_wd = ::inotify_add_watch(inotify_fd_.get(), path_of(e).c_str(), IN_CREATE | IN_ONLYDIR | IN_DONT_FOLLOW);
  if (e.dir_wd >= 0) index_->by_dir_wd[e.dir_wd] = &e;
  else ++stats_.watch_failures;
}

// id 0: not known yet (a directory reported by inotify): read with fstat.
Scanner::Entry* Scanner::add_child(Entry& p, std::string_view name, uint64_t id) {
  auto e = std::make_unique<Entry>();
  if (name.empty() || name.size() > NAME_MAX || name == "." || name == ".." || name.find('/') != name.npos)
    return nullptr;  // inotify and getdents give neither; a name is one path component
  Fd parent_scratch;
  int parent_dir = dir_of(p, parent_scratch);
  e->dir_fd.reset(open_subdir(parent_dir, std::string(name).c_str()));
  if (!e->dir_fd.valid()) {  // removed since getdents, unreadable, a symlink, or out of descriptors
    if (errno == EMFILE || errno == ENFILE) ++stats_.skipped;
    return nullptr;
  }
  struct stat st{};
  if (::fstat(e->dir_fd.get(), &st) != 0) return nullptr;
  if (id == 0) {
    if (index_->by_id.contains(st.st_ino)) return nullptr;
    id = st.st_ino;
  }
  if (options_.identity == Identity::saved) {
    // A directory the snapshot holds only as a parent keeps the copy's inode.
    id = saved_id(e->dir_fd.get()).value_or(id);
    if (auto found = index_->by_id.find(id); found != index_->by_id.end()) {
      found->second->seen = generation_;
      found->second->parent = &p;  // the copy's parent directory is a new entry
      return nullptr;
    }
  }
  // A leaf's directory is not kept (has_children asks its parent); one with
  // children is, for the walk.
  if (st.st_nlink == 2) e->dir_fd.reset();
  else hold_dir(*e);
  e->rel = (p.rel == "/" ? "" : p.rel) + "/" + std::string(name);
  e->id = id;
  e->depth = p.depth + 1;
  e->parent = &p;
  e->seen = generation_;
  e->born = last_scan_ns_ > 0;
  watch_dir(*e);
  index_->by_id.emplace(id, e.get());
  entries_.push_back(std::move(e));
  return entries_.back().get();
}

// A directory's link count is 2 + its subdirectories on cgroupfs (kernfs)
// and tmpfs, so a leaf (2) is not listed at all: one fstat (an fstatat on
// its parent when its own directory is not held; none while it is quiet)
// instead of a getdents over its ~50 control files. (Filesystems that
// report 1 for directories, btrfs, are always listed.) A leaf that got
// children gets its directory held.
bool Scanner::has_children(Entry& e) {
  struct stat st{};
  if (e.dir_fd.valid()) return ::fstat(e.dir_fd.get(), &st) != 0 || st.st_nlink != 2;
  // A quiet leaf is not looked at: a child that uses memory moves the
  // leaf's memory.current (it counts its descendants), and an idle one is
  // found after the leaf's next full read.
  if (e.quiet) return false;
  if (e.parent && e.parent->dir_fd.valid()) {
    std::string_view name = e.name();
    char z[NAME_MAX + 1];
    name.copy(z, name.size());
    z[name.size()] = '\0';
    if (::fstatat(e.parent->dir_fd.get(), z, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode) &&
        st.st_nlink == 2)
      return false;
  }
  e.dir_fd = open_cgroup_dir(e.rel);
  hold_dir(e);
  return true;
}

// Lists the subdirectories of one cgroup with getdents64 (d_type and d_ino:
// no stat per entry) and marks them seen, adding the new ones.
void Scanner::walk_children(size_t index) {
  if (!has_children(*entries_[index])) return;
  Fd scratch;
  int fd = dir_of(*entries_[index], scratch);
  if (fd < 0) return;
  if (::lseek(fd, 0, SEEK_SET) != 0) return;
  for (;;) {
    long n = ::syscall(SYS_getdents64, fd, dirents_.data(), dirents_.size());
    if (n <= 0) return;
    for (long at = 0; at < n;) {
      auto* d = reinterpret_cast<const dirent64*>(dirents_.data() + at);
      at += d->d_reclen;
      std::string_view name = d->d_name;
      if (name == "." || name == "..") continue;
      bool dir = d->d_type == DT_DIR;
      if (d->d_type == DT_UNKNOWN) {
        struct stat st{};
        dir = ::fstatat(fd, d->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode);
      }
      if (!dir) continue;
      if (options_.identity == Identity::inode) {
        if (auto found = index_->by_id.find(d->d_ino); found != index_->by_id.end()) {
          found->second->seen = generation_;
          continue;
        }
      }
      add_child(*entries_[index], name, d->d_ino);
    }
  }
}

void Scanner::walk() {
  entries_[0]->seen = generation_;
  // entries_ grows while walking: a new cgroup's own children are found in the same scan.
  for (size_t i = 0; i < entries_.size(); ++i) {
    Entry& e = *entries_[i];
    if (e.seen != generation_ || e.removed) continue;
    if (options_.max_depth < 0 || e.depth < options_.max_depth) walk_children(i);
  }
}

void Scanner::drop_removed() {
  for (auto& e : entries_) {
    if (!e->removed) continue;
    if (e->reported) --rows_held_;
    index_->by_id.erase(e->id);
    if (e->wd >= 0) {
      index_->by_wd.erase(e->wd);
      ::inotify_rm_watch(inotify_fd_.get(), e->wd);
    }
    if (e->dir_wd >= 0) {
      index_->by_dir_wd.erase(e->dir_wd);
      ::inotify_rm_watch(inotify_fd_.get(), e->dir_wd);
    }
    release_others(*e);
    dirs_held_ -= e->dir_fd.valid();
    files_held_ -= e->files_held();
  }
  std::erase_if(entries_, [](const std::unique_ptr<Entry>& e) { return e->removed; });
}

// Closes E's held files other than the sentinels.
void Scanner::release_others(Entry& e) {
  for (size_t i = 0; i < kFileCount; ++i) {
    if (is_sentinel(File(i)) || !e.fds[i].valid()) continue;
    e.fds[i].reset();
    --files_held_, --others_held_;
  }
}

// Room to keep one more descriptor of file F: the sentinels may take the
// whole budget but the headroom, the other files what the sentinels of
// every cgroup with a row would leave.
bool Scanner::room_for(File f) const {
  if (is_sentinel(f)) return dirs_held_ + files_held_ + kDirHeadroom < fd_budget_;
  return dirs_held_ + kSentinelCount * rows_held_ + others_held_ + kDirHeadroom < fd_budget_;
}

bool Scanner::others_over_budget() const {
  return dirs_held_ + kSentinelCount * rows_held_ + others_held_ + kDirHeadroom > fd_budget_;
}

// Reads file F of E into s through its held descriptor, or one opened for
// this read (kept when there is room for it). False when the cgroup is gone.
bool Scanner::read_file(Entry& e, File f, Sample& s) {
  size_t i = size_t(f);
  Fd opened;
  if (!e.fds[i].valid()) {
    opened = open_file(e, f);
    if (!opened.valid()) {
      if (errno == ENOENT && f != File::current) e.absent |= bit(f);  // memory.swap.* without swap accounting
      if (vanished_errno(errno)) return f != File::current;
      s.unreadable |= bit(f);
      return true;
    }
  }
  int fd = opened.valid() ? opened.get() : e.fds[i].get();
  ssize_t n = ::pread(fd, text_.data(), text_.size(), 0);
  if (n < 0) {
    if (vanished_errno(errno)) return false;
    s.unreadable |= bit(f);  // EISDIR, EIO: there, but no value
    return true;
  }
  // A file that fills the buffer may be longer: not read, as one that is
  // malformed (no control file is near kFileText).
  if (size_t(n) < text_.size()) parse_into(s, f, std::string_view(text_.data(), size_t(n)));
  if (!opened.valid()) return true;
  if (!room_for(f)) {
    others_wanted_ |= !is_sentinel(f);
    return true;
  }
  e.fds[i] = std::move(opened);
  ++files_held_;
  others_held_ += !is_sentinel(f);
  return true;
}

// An event read compares with the last regular scan's sample and keeps it:
// interval rows always cover a whole interval.
void Scanner::read_entry(Entry& e, uint64_t now_ns, bool from_event) {
  Sample s;
  s.t_ns = now_ns;
  bool there = true;
  size_t next = 0;
  while (there && next < kSentinelCount) there = read_file(e, kReadOrder[next++], s);
  uint64_t every = options_.full_read_every_ns;
  bool still = there && e.has_prev && sentinels_still(e.prev, s);
  if (still && every && !from_event && e.refresh_ns && now_ns < e.refresh_ns) {
    uint64_t full_read = e.prev.full_read_ns();
    s = e.prev;  // the sentinels as read now, the rest as read then
    s.t_ns = now_ns, s.carried_from_ns = full_read;
    e.quiet = true;
    ++quiet_;
    bool holds_others = e.files_held() > kSentinelCount;
    if (holds_others && (others_short_ || others_over_budget()) && now_ns - e.moved_ns >= every) release_others(e);
  } else {
    for (; there && next < kFileCount; ++next)
      if (!(e.absent & bit(kReadOrder[next]))) there = read_file(e, kReadOrder[next], s);
    if (!still) e.moved_ns = now_ns;
    e.quiet = false;
    if (every) e.refresh_ns = e.refresh_ns ? now_ns + every : first_refresh(now_ns, every, e.id);
  }
  if (!there) {
    e.removed = true;
    Row& row = rows_.emplace_back();
    row.path = e.rel, row.id = e.id, row.state = State::gone, row.reasons = kVanished;
    row.sample = e.prev, row.from_event = from_event;
    return;
  }
  if (!s.has(File::events_local) && s.has(File::events)) s.local = s.events;
  if (!e.has_prev && e.born && last_scan_ns_ < now_ns) {
    e.prev = Sample{.t_ns = last_scan_ns_, .read = s.read};
    e.has_prev = true;
  }

  Row& row = rows_.emplace_back();
  row.path = e.rel, row.id = e.id, row.sample = s, row.from_event = from_event;
  if (e.has_prev) row.rates = rates_between(e.prev, s);
  if (options_.read_tasks && e.has_prev && under_pressure(row.rates)) {
    Fd dir_scratch;
    row.tasks = read_tasks(dir_of(e, dir_scratch), options_.proc_root, text_);
  }
  Classification v = classify(s, row.rates,
                       {.first = !e.has_prev, .inner = e.inner, .tasks_over_high = row.tasks.over_high},
                       options_.thresholds);
  row.state = v.state, row.reasons = v.reasons;
  row.forecast = forecast(s, row.rates, options_.kernel, row.tasks.over_high);
  if (from_event && e.has_prev) return;
  e.prev = s;
  e.has_prev = true;
}

Result<std::span<const Row>> Scanner::scan(uint64_t now_ns) {
  drop_removed();
  rows_.clear();
  ++generation_;
  ++stats_.scans;
  struct stat st{};
  if (::fstat(entries_[0]->dir_fd.get(), &st) != 0 || st.st_nlink == 0)
    return sys_error("read the cgroup tree to watch", options_.root, "it was removed");
  walk();
  stats_.cgroups = stats_.reported = stats_.preopened = stats_.dropped = 0;
  for (auto& e : entries_) {
    bool retry = !e->reported && e->matched;  // the memory controller enabled since
    if (e->seen == generation_ && (!e->files_tried || retry)) open_files(*e);
    e->inner = false;
  }
  for (auto& e : entries_)
    if (e->seen == generation_ && e->reported && e->parent) e->parent->inner = true;
  rows_.reserve(entries_.size());  // exactly: a row per cgroup at most, no doubling's slack
  quiet_ = 0;
  // Wanted in the last scan: quiet cgroups give theirs back during this one.
  others_short_ = std::exchange(others_wanted_, false);
  uint64_t now = now_ns ? now_ns : cgmem::now_ns();
  for (auto& e : entries_) {
    if (e->seen != generation_) {
      e->removed = true;
      if (!e->reported) continue;
      Row& row = rows_.emplace_back();
      row.path = e->rel, row.id = e->id, row.state = State::gone, row.reasons = kVanished;
      row.sample = e->prev;
      continue;
    }
    ++stats_.cgroups;
    if (!e->reported) continue;
    ++stats_.reported;
    read_entry(*e, now, false);
    stats_.preopened += e->files_held() + size_t(std::popcount(e->absent)) == kFileCount;
  }
  stats_.watches = index_->by_wd.size();
  stats_.files_held = files_held_, stats_.dirs_held = dirs_held_, stats_.quiet = quiet_;
  last_scan_ns_ = now;
  return std::span<const Row>(rows_);
}

std::span<const Row> Scanner::scan_events(uint64_t now_ns) {
  rows_.clear();
  if (!inotify_fd_.valid()) return {};
  ++generation_;
  for (;;) {
    ssize_t n = ::read(inotify_fd_.get(), events_.data(), events_.size());
    if (n <= 0) break;
    for (ssize_t at = 0; at < n;) {
      auto* ev = reinterpret_cast<const inotify_event*>(events_.data() + at);
      at += ssize_t(sizeof(inotify_event) + ev->len);
      uint64_t now = now_ns ? now_ns : cgmem::now_ns();
      if (auto dir = index_->by_dir_wd.find(ev->wd); dir != index_->by_dir_wd.end()) {
        // mkdir under a cgroup we walk: a new cgroup, read at once.
        if (!(ev->mask & IN_CREATE) || !(ev->mask & IN_ISDIR) || ev->len == 0 || dir->second->removed) continue;
        Entry* fresh = add_child(*dir->second, ev->name, 0);
        if (!fresh) continue;
        open_files(*fresh);
        fresh->event_seen = generation_;
        if (fresh->reported) read_entry(*fresh, now, true);
        continue;
      }
      auto found = index_->by_wd.find(ev->wd);
      if (found == index_->by_wd.end()) continue;
      Entry& e = *found->second;
      if (e.removed || e.event_seen == generation_) continue;
      e.event_seen = generation_;
      if (ev->mask & IN_IGNORED) continue;  // the file went with its cgroup: the next scan says gone
      read_entry(e, now, true);
    }
  }
  return std::span<const Row>(rows_);
}

Result<void> Scanner::rebase(const std::string& new_root, const std::string& new_proc_root) {
  Fd root_fd(::open(new_root.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!root_fd.valid()) return sys_error("open the copy of the cgroup tree", new_root);
  struct statfs fs{};
  cgroupfs_ = ::fstatfs(root_fd.get(), &fs) == 0 && fs.f_type == CGROUP2_SUPER_MAGIC;
  dirs_held_ = files_held_ = others_held_ = 0;
  for (auto& e : entries_) {
    for (Fd& fd : e->fds) fd.reset();
    // The directories held before, in the copy (one not there: the next
    // walk finds it or says gone).
    bool held = e->dir_fd.valid();
    e->dir_fd = held && dirs_held_ < fd_budget_ ? open_dir_beneath(root_fd.get(), e->rel) : Fd();
    e->reported = e->files_tried = false;
    e->absent = 0;
    dirs_held_ += e->dir_fd.valid();
  }
  options_.root = new_root;
  options_.proc_root = new_proc_root;
  return {};
}

}  // namespace cgmem::watch
