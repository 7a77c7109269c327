// The scan's CPU per cgroup beside its floor, on a tree of cgroup
// directories (bench/watch_vs_python.sh generates one): the floor is a loop
// that only preads the same eight files of each cgroup through descriptors
// opened beforehand, what any scan must at least do. Median of 5 rounds of
// SCANS scans each; process CPU time (CLOCK_PROCESS_CPUTIME_ID). The floor
// holds 8 descriptors per cgroup, so it covers the cgroups that fit under
// the open-file limit (floor_cgroups); the scan covers the whole tree, with
// the files of the cgroups past its own budget opened and closed each scan
// (preopened says how many stay open). Heap per cgroup from mallinfo2 (arena and mmapped blocks).
//
// The scans are a second apart on the scanner's clock (as `cgmem watch`'s
// default interval), with quiet reads on, a quiet cgroup read in full every
// FULL_EVERY seconds (0: every file at every scan). Before each scan
// (outside the timing), BUSY percent of the cgroups, always the same ones,
// get a new memory.current: they are read in full at every scan.
//
// With `exporter`, the same for `cgmem exporter`'s collector: a scan and
// the page rendered from it (text format) per cycle; page_bytes_per_cgroup
// is the page's share of the heap.
//   watch_bench TREE [SCANS] [FULL_EVERY] [BUSY] [exporter]
// Prints one JSON object.
#include <fcntl.h>
#include <malloc.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <ctime>
#include <fmt/format.h>
#include <string>
#include <vector>

#include "exporter/collector.h"
#include "watch/scanner.h"

namespace {

double cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) / 1e9;
}

// In use from the arena and in mmapped blocks (a vector of rows past the
// mmap threshold is one of those).
size_t heap_in_use() {
  struct mallinfo2 m = mallinfo2();
  return m.uordblks + m.hblkhd;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: watch_bench TREE [SCANS]\n");
    return 2;
  }
  int scans = argc > 2 ? std::atoi(argv[2]) : 10;
  uint64_t full_every_s = argc > 3 ? uint64_t(std::atoll(argv[3])) : 30;
  double busy_share = argc > 4 ? std::atof(argv[4]) / 100 : 0;
  bool exporter = argc > 5 && std::string(argv[5]) == "exporter";  // else "scan"
  std::vector<std::string> paths;
  {  // The cgroups' paths, from one scan.
    auto s = cgmem::watch::Scanner::open({.root = argv[1], .proc_root = "/nonexistent"});
    auto rows = s ? (*s)->scan(0) : cgmem::Result<std::span<const cgmem::watch::Row>>();
    if (!s || !rows) return 1;
    for (const auto& row : *rows) paths.emplace_back(std::string(argv[1]) + std::string(row.path == "/" ? "" : row.path));
  }
  // The floor, alone in the process (the scanner is closed).
  rlimit limit{};
  getrlimit(RLIMIT_NOFILE, &limit);
  size_t fit = std::min(paths.size(), size_t(limit.rlim_cur > 256 ? (limit.rlim_cur - 256) / 8 : 0));
  std::vector<int> fds;
  for (size_t i = 0; i < fit; ++i)
    for (const char* name : cgmem::watch::kFileNames)
      if (int fd = ::open((paths[i] + "/" + name).c_str(), O_RDONLY | O_CLOEXEC); fd >= 0) fds.push_back(fd);
  std::array<char, 16384> buffer;
  size_t bytes = 0;
  std::vector<double> floor_rounds, scan_rounds;
  for (int round = 0; round < 5; ++round) {
    double start = cpu_seconds();
    for (int i = 0; i < scans; ++i)
      for (int fd : fds) bytes += size_t(std::max<ssize_t>(0, ::pread(fd, buffer.data(), buffer.size(), 0)));
    floor_rounds.push_back((cpu_seconds() - start) / scans / double(fit));
  }
  for (int fd : fds) ::close(fd);

  // The busy cgroups: every k-th, so that they spread over the tree.
  std::vector<std::string> busy;
  if (busy_share > 0)
    for (size_t i = 0; i < paths.size(); i += size_t(1 / busy_share)) busy.push_back(paths[i] + "/memory.current");
  uint64_t clock_ns = 1'000'000'000, current = 1 << 20;
  auto step = [&] {  // a second passes; the busy cgroups grow by a page
    clock_ns += 1'000'000'000;
    current += 4096;
    std::string text = std::to_string(current) + "\n";
    for (const auto& file : busy)
      if (int fd = ::open(file.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC); fd >= 0) {
        if (::write(fd, text.data(), text.size()) < 0) std::perror("write");
        ::close(fd);
      }
  };

  size_t heap_before = heap_in_use();
  cgmem::watch::ScanOptions options{
      .root = argv[1], .proc_root = "/nonexistent", .full_read_every_ns = full_every_s * 1'000'000'000};
  std::unique_ptr<cgmem::watch::Scanner> scanner;
  std::unique_ptr<cgmem::exporter::Collector> collector;
  auto failed = [](const cgmem::Error& e) {
    std::fprintf(stderr, "watch_bench: %s\n", e.message().c_str());
    return 1;
  };
  if (exporter) {
    auto opened = cgmem::exporter::Collector::open({.scan = options});
    if (!opened) return failed(opened.error());
    collector = std::move(*opened);
  } else {
    auto opened = cgmem::watch::Scanner::open(options);
    if (!opened) return failed(opened.error());
    scanner = std::move(*opened);
  }
  auto scan = [&](uint64_t t) { return exporter ? bool(collector->scan(t)) : bool(scanner->scan(t)); };
  const cgmem::watch::ScanStats& stats = exporter ? collector->scanner().stats() : scanner->stats();
  for (int i = 0; i < 2; ++i, step())
    if (!scan(clock_ns)) return 1;
  size_t heap = heap_in_use() - heap_before;
  size_t page_bytes = exporter ? collector->page()->text.capacity() : 0;
  size_t cgroups = stats.reported;
  size_t quiet = 0;
  for (int round = 0; round < 5; ++round) {
    double cpu = 0;
    for (int i = 0; i < scans; ++i, step()) {
      double start = cpu_seconds();
      if (!scan(clock_ns)) return 1;
      cpu += cpu_seconds() - start;
      quiet += stats.quiet;
    }
    scan_rounds.push_back(cpu / scans / double(cgroups));
  }
  double scan_us = median(scan_rounds) * 1e6, floor_us = median(floor_rounds) * 1e6;
  fmt::print(
      "{{\"cgroups\":{},\"preopened\":{},\"skipped\":{},\"fd_limit\":{},\"scans_per_round\":{},"
      "\"scan_us_per_cgroup\":{:.3f},\"floor_cgroups\":{},\"floor_us_per_cgroup\":{:.3f},"
      "\"scan_over_floor\":{:.3f},\"cgroups_per_s\":{:.0f},\"heap_bytes_per_cgroup\":{:.0f},"
      "\"bytes_read\":{},\"full_read_every_s\":{},\"busy_cgroups\":{},\"quiet_share\":{:.3f},"
      "\"files_held\":{},\"dirs_held\":{},\"exporter\":{},\"page_bytes_per_cgroup\":{:.0f}}}\n",
      cgroups, stats.preopened, stats.skipped, uint64_t(limit.rlim_cur), scans, scan_us,
      fit, floor_us, scan_us / floor_us, 1e6 / scan_us, double(heap) / double(cgroups), bytes, full_every_s, busy.size(),
      double(quiet) / double(5 * scans) / double(cgroups), stats.files_held, stats.dirs_held, exporter, double(page_bytes) / double(cgroups));
  return 0;
}
