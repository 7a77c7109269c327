// The lab's measurement costs, natively on the throttled fixture tree:
//   BM_SamplerTick      one sampler tick for a cgroup with one process (9
//                       control files, cgroup.procs, /proc/PID/stat and
//                       wchan), the line written to /dev/null;
//   BM_OpMeasurement    what the workload adds around each op: two reads of
//                       memory.current + memory.events, two clock reads,
//                       sched_getcpu, the op line and its write(2);
//   BM_AnonChunkOp      the op itself for scale: map, write and copy 256 KiB.
// Each reports heap allocations per iteration (operator new is counted).
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <sched.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <new>

#include "support/count_allocations.h"

#include "lab/json_line.h"
#include "lab/op_line.h"
#include "lab/own_counters.h"
#include "lab/sampler.h"
#include "common/file.h"


namespace {

namespace fs = std::filesystem;
using namespace cgmem::lab;

// A copy of the fixture cgroup and its process's /proc files.
struct Tree {
  std::string root = (fs::temp_directory_path() / "cgmem-lab-bench").string();
  std::string cgroup = root + "/cg", proc = root + "/proc";
  Tree() {
    fs::remove_all(root);
    fs::create_directories(proc + "/158");
    std::string fixture = std::string(CGMEM_FIXTURES) + "/cgroup-v2-6.12-throttled/";
    fs::copy(fixture + "lab-run1", cgroup, fs::copy_options::recursive);
    fs::copy(fixture + "proc/stat", proc + "/158/stat");
    fs::copy(fixture + "proc/wchan", proc + "/158/wchan");
  }
  ~Tree() { fs::remove_all(root); }
};

uint64_t now_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000ULL + static_cast<uint64_t>(ts.tv_nsec);
}

void BM_SamplerTick(benchmark::State& state) {
  Tree tree;
  auto sampler = Sampler::open(tree.cgroup, tree.proc);
  int fd = ::open("/dev/null", O_WRONLY);
  (void)(*sampler)->tick(0, fd);  // the first tick opens the process's files
  size_t before = cgmem::testing::allocation_count();
  for (auto _ : state) benchmark::DoNotOptimize((*sampler)->tick(now_ns(), fd));
  state.counters["allocs_per_tick"] = benchmark::Counter(
      static_cast<double>(cgmem::testing::allocation_count() - before), benchmark::Counter::kAvgIterations);
  state.counters["line_bytes"] = static_cast<double>((*sampler)->last_line().size());
  ::close(fd);
}
BENCHMARK(BM_SamplerTick);

void BM_OpMeasurement(benchmark::State& state) {
  Tree tree;
  auto counters = OwnCounters::open(tree.cgroup, false);
  int fd = ::open("/dev/null", O_WRONLY);
  char storage[512];
  JsonLine line(storage);
  OpRecord record{.pid = static_cast<int>(::getpid())};
  size_t before = cgmem::testing::allocation_count();
  for (auto _ : state) {
    auto b = counters->read();
    uint64_t start = now_ns();
    uint64_t end = now_ns();  // the op would run between these two
    auto a = counters->read();
    record.cpu = ::sched_getcpu();
    record.t_ns = start, record.lat_ns = end - start, record.before = *b, record.after = *a;
    format_op_line(record, line);
    benchmark::DoNotOptimize(write_all(fd, line.view()));
    ++record.op;
  }
  state.counters["allocs_per_op"] = benchmark::Counter(
      static_cast<double>(cgmem::testing::allocation_count() - before), benchmark::Counter::kAvgIterations);
  ::close(fd);
}
BENCHMARK(BM_OpMeasurement);

void BM_AnonChunkOp(benchmark::State& state) {
  constexpr size_t kChunk = 256 * 1024;
  void* held = ::mmap(nullptr, kChunk, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  void* scratch = ::mmap(nullptr, kChunk, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  std::memset(held, 1, kChunk);
  std::memset(scratch, 1, kChunk);
  for (auto _ : state) {
    void* p = ::mmap(nullptr, kChunk, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    std::memset(p, 0xa5, kChunk);
    std::memcpy(scratch, held, kChunk);
    benchmark::DoNotOptimize(p);
    ::munmap(p, kChunk);
  }
}
BENCHMARK(BM_AnonChunkOp);

}  // namespace

BENCHMARK_MAIN();
