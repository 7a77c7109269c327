// Snapshots: a saved copy of a cgroup tree, two reads an interval apart, so
// `cgmem watch --once DIR` classifies it later (on another machine, attached
// to a bug report) exactly as it would have live.
//
//   OUT/snapshot.json    {"schema": kSnapshotSchema, "root", "kernel", "hz", "hz_source",
//                         "page_size", "samples": [{"dir": "0", "t_ns", "unix_time"}, {"dir": "1", ...}]}
//   OUT/0/REL/FILE       each file of watch/sample.h, as read, for every cgroup with a row
//   OUT/0/REL/cgroup.procs and OUT/0/proc/PID/{stat,wchan} of its tasks
//   OUT/0/REL/cgmem.inode  the live directory's inode (the cgroup's identity)
//   OUT/1/...            the second read
//
// Files are copied right after each scan, so a copy is a few milliseconds
// younger than what the scan itself read. OUT is written as OUT.tmp-PID and
// renamed when complete; an existing OUT is an error.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.h"
#include "watch/scanner.h"

namespace cgmem::watch {

// snapshot.json's "schema": a reader refuses any other.
inline constexpr uint64_t kSnapshotSchema = 1;

struct SnapshotMeta {
  std::string root;     // the live tree that was copied
  std::string kernel;   // uname -r of the host
  model::Kernel kernel_facts;
  std::string hz_source;
  uint64_t t_ns[2] = {0, 0};
  double unix_time[2] = {0, 0};
};

// Copies the files behind rows (one scan of `scanner`) into OUT/SAMPLE, OUT
// being out_fd: every directory is made one name at a time below it and no
// name comes from a file's contents but a pid (decimal digits), so nothing
// the tree holds writes outside OUT. A control file that is not regular or
// is larger than a scan reads (kFileText) is an error; one that vanished is
// left out.
Result<void> copy_sample(const Scanner& scanner, std::span<const Row> rows, int out_fd, const std::string& sample,
                         const std::string& proc_root);

// Writes DIR/snapshot.json.
Result<void> write_snapshot_meta(const std::string& dir, const SnapshotMeta& meta);

// Reads DIR/snapshot.json (a regular file of at most 1 MiB; hz and page_size
// checked as meta.json's are; errors name the file and what is wrong).
Result<SnapshotMeta> read_snapshot_meta(const std::string& dir);
// The text of a snapshot.json (`path` names it in errors).
Result<SnapshotMeta> parse_snapshot_meta(std::string_view text, const std::string& path);

// A snapshot replayed: the rows of its second read, classified against its
// first, with the kernel facts it recorded (HZ, page size). options gives
// depth, match and thresholds; its root, proc_root, identity and kernel are
// set from DIR (options.kernel.hz stays when not 0 and override_hz is set).
struct Replay {
  std::unique_ptr<Scanner> scanner;
  std::vector<Row> rows;  // paths point into scanner
  SnapshotMeta meta;
};
Result<Replay> replay_snapshot(const std::string& dir, ScanOptions options, bool override_hz = false);

}  // namespace cgmem::watch
