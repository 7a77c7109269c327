#include "watch/scanner.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/inotify.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <array>
#include <unordered_map>

#include "common/clock.h"
#include "common/file.h"
#include "cgroup/reader.h"
#include "common/text.h"

namespace cgmem::watch {

struct Scanner::Entry {
  std::string path;  // absolute (or as the root was given), for messages and inotify
  std::string rel;   // "/" for the root, else "/a/b"
  uint64_t id = 0;
  int depth = 0;
  Fd dir_fd;
  std::array<Fd, kFileCount> fds;  // not valid: not open (read by openat each scan)
  bool preopened = false;
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
  // Created after the scanner's first scan: its counters all started at 0
  // since the previous scan, so its first sample has rates from zero (a
  // cgroup created and OOM-killed between two scans is oom_killed).
  bool born = false;

};

struct Scanner::Index {
  std::unordered_map<uint64_t, Entry*> by_id;
  std::unordered_map<int, Entry*> by_wd;
  std::unordered_map<int, Entry*> by_dir_wd;
};

namespace {

constexpr size_t kReserveFds = 128;  // stdout, inotify, /proc reads, the caller's own
// Files are kept open only while this many descriptors stay free for the
// directories of cgroups created later (a directory fd is needed to walk).
constexpr size_t kDirHeadroom = 1024;

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
  e->id = st.st_ino;
  if (s->options_.identity == Identity::saved) e->id = saved_id(e->dir_fd.get()).value_or(e->id);
  e->path = root;
  e->rel.assign(1, '/');  // (not = "/": g++ 12 -O3 warns -Wrestrict on it)
  if (s->options_.events) {
    s->inotify_fd_.reset(::inotify_init1(IN_NONBLOCK | IN_CLOEXEC));
    if (!s->inotify_fd_.valid()) return sys_error("start inotify for memory.events", root);
    s->watch_dir(*e);
  }
  s->fd_budget_ = raise_fd_limit(1 << 20);
  s->fd_budget_ = s->fd_budget_ > kReserveFds ? s->fd_budget_ - kReserveFds : 0;
  s->fds_open_ = 1;
  s->index_->by_id.emplace(e->id, e.get());
  s->entries_.push_back(std::move(e));
  return s;
}

int Scanner::event_fd() const { return inotify_fd_.get(); }

// The cgroup's directory: its own descriptor while the budget allowed one,
// else opened again below the root for this read (held by `scratch`).
int Scanner::dir_of(const Entry& e, Fd& scratch) {
  if (e.dir_fd.valid()) return e.dir_fd.get();
  scratch = open_dir_beneath(entries_[0]->dir_fd.get(), e.rel);
  if (!scratch.valid() && (errno == EMFILE || errno == ENFILE)) ++stats_.skipped;
  return scratch.get();
}

Fd Scanner::open_cgroup_dir(std::string_view rel) const { return open_dir_beneath(entries_[0]->dir_fd.get(), rel); }

// Past the descriptor budget a directory is not kept open (a tree with more
// cgroups than ulimit -n is read all the same, a little slower).
void Scanner::hold_or_close(Entry& e) {
  if (!e.dir_fd.valid()) return;
  if (fds_open_ < fd_budget_) ++fds_open_;
  else e.dir_fd.reset();
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
  Fd dir_scratch;
  int dir = dir_of(e, dir_scratch);
  Fd current = open_tree_file(dir, kFileNames[0]);
  // There but not readable (not a regular file, a link, no permission): a
  // row all the same, shown as unknown, its files opened afresh each scan.
  bool there = current.valid() || (dir >= 0 && errno != ENOENT && !vanished_errno(errno));
  e.reported = there;
  if (!e.reported) return;
  ++rows_held_;
  e.preopened = current.valid() && e.dir_fd.valid() && fds_open_ + kFileCount + kDirHeadroom <= fd_budget_;
  if (e.preopened) {
    e.fds[0] = std::move(current);
    for (size_t i = 0; i < kFileCount; ++i) {
      if (i > 0) e.fds[i] = open_tree_file(dir, kFileNames[i]);
      if (e.fds[i].valid()) ++fds_open_;
    }
  }
  if (e.reported && inotify_fd_.valid() && e.wd < 0) {
    std::string events = e.path + "/" + kFileNames[size_t(File::events)];
    e.wd = ::inotify_add_watch(inotify_fd_.get(), events.c_str(), IN_MODIFY | IN_DONT_FOLLOW);
    if (e.wd >= 0) index_->by_wd[e.wd] = &e;
    else ++stats_.watch_failures;
  }
}

// Watches a directory for new subdirectories, within --depth.
void Scanner::watch_dir(Entry& e) {
  if (!inotify_fd_.valid() || (options_.max_depth >= 0 && e.depth >= options_.max_depth)) return;
  e.dir_wd = ::inotify_add_watch(inotify_fd_.get(), e.path.c_str(), IN_CREATE | IN_ONLYDIR | IN_DONT_FOLLOW);
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
  if (id == 0) {
    struct stat st{};
    if (::fstat(e->dir_fd.get(), &st) != 0 || index_->by_id.contains(st.st_ino)) return nullptr;
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
  hold_or_close(*e);
  e->path = p.path + "/" + std::string(name);
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

// Lists the subdirectories of one cgroup with getdents64 (d_type and d_ino:
// no stat per entry) and marks them seen, adding the new ones.
//
// A directory's link count is 2 + its subdirectories on cgroupfs (kernfs)
// and tmpfs, so a leaf (2) is not listed at all: one fstat instead of a
// getdents over its ~50 control files. (Filesystems that report 1 for
// directories, btrfs, are always listed.)
void Scanner::walk_children(size_t index) {
  Fd scratch;
  int fd = dir_of(*entries_[index], scratch);
  if (fd < 0) return;
  struct stat st{};
  if (::fstat(fd, &st) == 0 && st.st_nlink == 2) return;
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
    fds_open_ -= size_t(e->dir_fd.valid()) + size_t(std::count_if(e->fds.begin(), e->fds.end(), [](const Fd& fd) { return fd.valid(); }));
  }
  std::erase_if(entries_, [](const std::unique_ptr<Entry>& e) { return e->removed; });
}

// An event read compares with the last regular scan's sample and keeps it:
// interval rows always cover a whole interval.
void Scanner::read_entry(Entry& e, uint64_t now_ns, bool from_event) {
  Sample s;
  s.t_ns = now_ns;
  Fd dir_scratch;
  int dir = e.preopened ? -1 : dir_of(e, dir_scratch);
  bool vanished = !e.preopened && dir < 0 && vanished_errno(errno);
  for (size_t i = 0; i < kFileCount && !vanished; ++i) {
    Fd opened_here;  // when the files are not kept open
    if (!e.preopened) {
      opened_here = open_tree_file(dir, kFileNames[i]);
      if (!opened_here.valid() && i == 0 && vanished_errno(errno)) vanished = true;
      if (!opened_here.valid() && errno != ENOENT && !vanished_errno(errno)) s.unreadable |= bit(File(i));
    }
    int fd = e.preopened ? e.fds[i].get() : opened_here.get();
    if (fd < 0) continue;
    ssize_t n = ::pread(fd, text_.data(), text_.size(), 0);
    int err = errno;
    opened_here.reset();
    if (n < 0) {
      vanished = vanished_errno(err);
      if (!vanished) s.unreadable |= bit(File(i));  // EISDIR, EIO: there, but no value
      continue;
    }
    // A file that fills the buffer may be longer: not read, as one that is
    // malformed (no control file is near kFileText).
    if (size_t(n) == text_.size()) continue;
    parse_into(s, File(i), std::string_view(text_.data(), size_t(n)));
  }
  if (vanished) {
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
  if (options_.read_tasks && e.has_prev && under_pressure(row.rates))
    row.tasks = read_tasks(e.preopened ? e.dir_fd.get() : dir, options_.proc_root, text_);
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
    stats_.preopened += e->preopened;
    read_entry(*e, now_ns ? now_ns : cgmem::now_ns(), false);
  }
  stats_.watches = index_->by_wd.size();
  last_scan_ns_ = now_ns ? now_ns : cgmem::now_ns();
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
  fds_open_ = 0;
  for (auto& e : entries_) {
    for (Fd& fd : e->fds) fd.reset();
    // Not in the copy (or past the budget): the next walk finds it or says gone.
    e->dir_fd = e->rel == "/" || fds_open_ < fd_budget_ ? open_dir_beneath(root_fd.get(), e->rel) : Fd();
    e->path = e->rel == "/" ? new_root : new_root + e->rel;
    e->preopened = e->reported = e->files_tried = false;
    if (e->dir_fd.valid()) ++fds_open_;
  }
  options_.root = new_root;
  options_.proc_root = new_proc_root;
  return {};
}

}  // namespace cgmem::watch
