// The scan's CPU per cgroup beside its floor, on a tree of cgroup
// directories (bench/watch_vs_python.sh generates one): the floor is a loop
// that only preads the same eight files of each cgroup through descriptors
// opened beforehand, what any scan must at least do. Median of 5 rounds of
// SCANS scans each; process CPU time (CLOCK_PROCESS_CPUTIME_ID). The floor
// holds 8 descriptors per cgroup, so it covers the cgroups that fit under
// the open-file limit (floor_cgroups); the scan covers the whole tree, with
// the files of the cgroups past its own budget opened and closed each scan
// (preopened says how many stay open). Heap per cgroup from mallinfo2.
//   watch_bench TREE [SCANS]
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

#include "watch/scanner.h"

namespace {

double cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) / 1e9;
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

  size_t heap_before = mallinfo2().uordblks;
  auto opened = cgmem::watch::Scanner::open({.root = argv[1], .proc_root = "/nonexistent"});
  if (!opened) {
    std::fprintf(stderr, "watch_bench: %s\n", opened.error().message().c_str());
    return 1;
  }
  auto& scanner = **opened;
  if (!scanner.scan(0) || !scanner.scan(0)) return 1;
  size_t heap = mallinfo2().uordblks - heap_before;
  size_t cgroups = scanner.stats().reported;
  for (int round = 0; round < 5; ++round) {
    double start = cpu_seconds();
    for (int i = 0; i < scans; ++i)
      if (!scanner.scan(0)) return 1;
    scan_rounds.push_back((cpu_seconds() - start) / scans / double(cgroups));
  }
  double scan_us = median(scan_rounds) * 1e6, floor_us = median(floor_rounds) * 1e6;
  fmt::print(
      "{{\"cgroups\":{},\"preopened\":{},\"skipped\":{},\"fd_limit\":{},\"scans_per_round\":{},"
      "\"scan_us_per_cgroup\":{:.3f},\"floor_cgroups\":{},\"floor_us_per_cgroup\":{:.3f},"
      "\"scan_over_floor\":{:.3f},\"cgroups_per_s\":{:.0f},\"heap_bytes_per_cgroup\":{:.0f},"
      "\"bytes_read\":{}}}\n",
      cgroups, scanner.stats().preopened, scanner.stats().skipped, uint64_t(limit.rlim_cur), scans, scan_us,
      fit, floor_us, scan_us / floor_us, 1e6 / scan_us, double(heap) / double(cgroups), bytes);
  return 0;
}
