// The scanner: walks a cgroup2 tree, reads every cgroup once per scan,
// remembers each one's previous sample and returns one classified Row per
// cgroup. `cgmem watch`, `cgmem top`, the exporter and the guard all read
// through it.
//
// Identity. A cgroup is its directory inode (the d_ino getdents gives, no
// stat per entry), not its name: one removed and created again under the same
// name is a new cgroup, and the old one is reported `gone` once.
//
// Cost. Every scan reads each cgroup's sentinel files, memory.current and
// memory.events (watch/sample.h). When neither moved since the cgroup's last
// full read, the read is quiet: the other files are not read and the row
// carries their values from that full read, whose time their rates span
// (Sample::carried_from_ns). A quiet cgroup is read in full again at least
// every `full_read_every_ns` (staggered by cgroup), and always when a
// sentinel moves or memory.events changes under inotify. What a quiet row
// can hold that is older than the scan: a limit written without any other
// effect, pressure stalls and page faults that charged nothing (within the
// per-CPU charge stock), the PSI averages.
//
// Descriptors. The budget (the open-file limit, raised to the hard limit at
// open, or `max_open_files`) goes first to the directories of the root and
// of cgroups with children (a walk lists them), then to every cgroup's
// sentinel files, then to the other files of the cgroups read in full (the
// busiest: a cgroup quiet for `full_read_every_ns` gives its other files
// back when another one needs them). A file without a held descriptor is
// opened below the root with one openat2, read and closed. A leaf's
// directory is not held: an fstatat on its parent shows whether it got
// children, and only after a full read (a child that uses memory moves its
// parent's memory.current; an idle one is found after the next full read). Each held file costs kernel memory charged to the scanner's
// cgroup (a seq_file buffer; docs/watch.md has the figures); ScanStats
// reports how many are held. Past the budget, a directory is opened again
// below the root, one component at a time, whenever it is read, so a tree
// of more cgroups than `ulimit -n` (a saved one of 100,000 siblings) is read
// whole.
//
// Trust. A tree given with --root or saved by a snapshot may hold anything:
// every file is opened non-blocking, never through a symlink, and read only
// when regular (common/file.h: open_tree_file); directories are opened with
// O_NOFOLLOW, by one name at a time. In steady
// state (no cgroup created or removed) a scan allocates nothing: rows live
// in a vector whose capacity is kept, paths are built once per new cgroup.
// The tasks of a cgroup (watch/tasks.h) are read only when it shows
// pressure (high, max or kill counters rising, PSI, refaults).
//
// Events. With `events` on, the scanner also watches each cgroup's
// memory.events with inotify (the kernel notifies every change of it) and
// each directory for new subdirectories (mkdir), so a caller can poll
// event_fd() and call scan_events() to re-read only the cgroups whose
// counters moved, and to find a cgroup the moment it is created (one that is
// created, OOM-killed and removed between two scans is still seen).
//
// It only reads: no file under the root is ever written.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.h"
#include "common/fd.h"
#include "common/pattern.h"
#include "model/penalty.h"
#include "watch/classify.h"
#include "watch/forecast.h"
#include "watch/sample.h"
#include "watch/tasks.h"

namespace cgmem::watch {

// The most of one control file a scan reads (one pread into a fixed buffer):
// memory.stat, the longest, is about 1.5 KiB on 6.12. A file that fills it
// is not parsed (it may be longer), and a snapshot refuses to copy it.
inline constexpr size_t kFileText = 16384;

// Where a cgroup's identity comes from.
enum class Identity : uint8_t {
  inode,  // the directory's inode: live cgroupfs
  saved,  // the number in the directory's `cgmem.inode` file: a snapshot (watch/snapshot.h)
};

// A snapshot's cgmem.inode: "12345\n", the live directory's inode. Anything
// else is no id (the copy's own inode stands in).
std::optional<uint64_t> parse_saved_id(std::string_view text) noexcept;

struct ScanOptions {
  std::string root;                   // a cgroup2 directory (the mount, a delegated subtree, a snapshot)
  int max_depth = -1;                 // levels below root to walk; -1: all
  Pattern match;                      // rows only for paths (relative, "/a/b") that match; walks on
  model::Kernel kernel;               // HZ and page size for forecasts
  std::string proc_root = "/proc";    // where tasks' stat and wchan are read
  Thresholds thresholds;
  Identity identity = Identity::inode;
  bool events = false;                // inotify on memory.events
  bool read_tasks = true;             // list the tasks in D of cgroups under pressure
  // At most this many cgroups get rows (0: no cap). The first found, in
  // walk order, keep their place; the others are counted in
  // ScanStats::dropped and tried again each scan.
  size_t max_rows = 0;
  // 0: every file of every cgroup at every scan. Else quiet reads (Cost,
  // above), a quiet cgroup read in full at least this often. A saved tree
  // is always read in full: its copies differ in files the sentinels do not see.
  uint64_t full_read_every_ns = 0;
  // Descriptors held at most (0: the open-file limit's): the bound on the
  // kernel memory the held files cost.
  size_t max_open_files = 0;
};

// One cgroup after a scan: what was read, how it moved, what it means.
struct Row {
  std::string_view path;   // relative to the root, "/" for the root itself; valid until the next scan
  uint64_t id = 0;         // the directory inode (Identity)
  State state = State::ok;
  uint32_t reasons = 0;    // Reason bits: the evidence
  Sample sample;           // now (for `gone`: the last sample read)
  Rates rates;             // since the previous sample (zero on the first)
  Forecast forecast;       // valid when over memory.high
  Tasks tasks;             // read when the cgroup shows pressure
  bool from_event = false; // produced by scan_events()
};

// Counters about the scanner itself (for benchmarks and the exporter's self-metrics).
struct ScanStats {
  size_t cgroups = 0;        // directories known (walked)
  size_t reported = 0;       // of them with rows (matched, memory controller on)
  size_t preopened = 0;      // cgroups whose files all stay open
  size_t files_held = 0;     // control files' descriptors held between scans
  size_t dirs_held = 0;      // directories' descriptors held
  size_t quiet = 0;          // rows of the last scan read quietly (sentinels only)
  size_t watches = 0;        // inotify watches held
  size_t watch_failures = 0; // memory.events files inotify refused (limit reached)
  size_t skipped = 0;        // directories not opened: out of file descriptors (ulimit -n)
  size_t dropped = 0;        // cgroups left without a row by ScanOptions::max_rows (last scan)
  uint64_t scans = 0;
};

class Scanner {
 public:
  // Opens the root (its directory must exist and be readable). Reads
  // nothing else yet: the first scan() finds the tree.
  static Result<std::unique_ptr<Scanner>> open(ScanOptions options);
  ~Scanner();
  Scanner(const Scanner&) = delete;
  Scanner& operator=(const Scanner&) = delete;

  // Walks the tree and reads every cgroup. now_ns is CLOCK_MONOTONIC (a
  // snapshot replay passes its recorded times). The rows stay valid until
  // the next call of scan() or scan_events(). Fails only when the root
  // itself is gone or unreadable.
  Result<std::span<const Row>> scan(uint64_t now_ns);

  // With options.events: the inotify descriptor to poll (POLLIN), else -1.
  int event_fd() const;

  // Drains the inotify queue and re-reads only the cgroups whose
  // memory.events changed and the ones just created (rows have from_event
  // set). Empty when nothing changed.
  std::span<const Row> scan_events(uint64_t now_ns);

  // Follows the same cgroups in another copy of the tree: closes every file,
  // reopens each known cgroup under new_root by its path (the ids and the
  // previous samples stay), so the next scan() compares the copy with what
  // was read before. A snapshot replay scans OUT/0, rebases to OUT/1 and
  // scans again. Fails when new_root cannot be opened.
  Result<void> rebase(const std::string& new_root, const std::string& new_proc_root);

  // The directory of the cgroup at REL ("/a/b", as Row::path) below the
  // root, opened one name at a time (no symlink, no ".."); invalid when gone.
  Fd open_cgroup_dir(std::string_view rel) const;

  const ScanStats& stats() const { return stats_; }
  const ScanOptions& options() const { return options_; }

  struct Entry;  // one known cgroup (scanner.cpp)

 private:
  explicit Scanner(ScanOptions options);
  void walk();
  void walk_children(size_t index);
  Entry* add_child(Entry& parent, std::string_view name, uint64_t id);
  void watch_dir(Entry& e);
  void read_entry(Entry& e, uint64_t now_ns, bool from_event);
  bool read_file(Entry& e, File f, Sample& s);
  Fd open_file(const Entry& e, File f, unsigned* mode = nullptr);
  bool room_for(File f) const;
  bool others_over_budget() const;
  void release_others(Entry& e);
  void open_files(Entry& e);
  int dir_of(const Entry& e, Fd& scratch);
  bool has_children(Entry& e);
  bool hold_dir(Entry& e);
  void drop_removed();
  std::string path_of(const Entry& e) const;

  ScanOptions options_;
  std::vector<std::unique_ptr<Entry>> entries_;
  std::vector<Row> rows_;
  std::vector<char> dirents_;   // getdents64 buffer
  std::vector<char> text_;      // one file's text
  std::vector<char> events_;    // inotify read buffer
  uint64_t generation_ = 0;
  uint64_t last_scan_ns_ = 0;   // when the previous scan() read (0: none yet)
  size_t fd_budget_ = 0;        // file descriptors the scanner may keep open
  size_t dirs_held_ = 0;        // descriptors held: directories,
  size_t files_held_ = 0;       // control files,
  size_t others_held_ = 0;      // and of them files other than the sentinels
  size_t quiet_ = 0;            // quiet reads in this scan
  bool others_wanted_ = false;  // a full read of this scan found no room to keep its other files
  bool others_short_ = false;   // one of the last scan did
  bool cgroupfs_ = false;       // the root is a cgroup2 mount (no other kind of file there)
  size_t rows_held_ = 0;        // entries with reported set (for max_rows)
  Fd inotify_fd_;
  ScanStats stats_;
  struct Index;                 // id -> entry, wd -> entry
  std::unique_ptr<Index> index_;
};

}  // namespace cgmem::watch
