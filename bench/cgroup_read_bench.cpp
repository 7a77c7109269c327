// What one sampler tick of cgroup reads costs: preopened fds preading into
// a fixed buffer against open/read/close per file, and the parsers alone.
// Fixture files are regular files (page cache); /proc/pressure/memory and
// the cgroup2 root's cpu.stat are the kernel's seq_files, read only.
#include <benchmark/benchmark.h>

#include <array>
#include <string>
#include <vector>

#include "cgroup/flat_keyed.h"
#include "cgroup/nested_keyed.h"
#include "cgroup/pressure.h"
#include "cgroup/reader.h"
#include "cgroup/single_value.h"

namespace {

using namespace cgmem::cgroup;

const std::string kRun = std::string(CGMEM_FIXTURES) + "/cgroup-v2-6.12-throttled/lab-run1/";
const char* kTickFiles[] = {"memory.current", "memory.events", "memory.pressure", "io.pressure",
                            "memory.stat",    "cpu.stat",      "io.stat"};

// Parses what a sampler tick parses from the seven files' text.
uint64_t parse_tick(const std::array<std::string_view, 7>& text) {
  uint64_t sum = parse_counter_value(text[0]).value_or(0);
  sum += flat_value(text[1], "high").value_or(0);
  sum += parse_pressure(text[2], "memory.pressure")->some->total_usec;
  sum += parse_pressure(text[3], "io.pressure")->some->total_usec;
  for_each_flat(text[4], [&](std::string_view, uint64_t v) { sum += v; });
  for_each_flat(text[5], [&](std::string_view, uint64_t v) { sum += v; });
  for_each_nested(text[6], [&](DeviceId, std::string_view, std::string_view v) { sum += v.size(); });
  return sum;
}

void BM_TickPreopened(benchmark::State& state) {
  std::vector<FileReader> readers;
  for (const char* file : kTickFiles) readers.push_back(FileReader::open(kRun + file).value());
  std::array<std::array<char, 8192>, 7> buffers;
  for (auto _ : state) {
    std::array<std::string_view, 7> text;
    for (size_t i = 0; i < 7; ++i) text[i] = readers[i].read_raw(buffers[i]).value_or("");
    benchmark::DoNotOptimize(parse_tick(text));
  }
}
BENCHMARK(BM_TickPreopened);

void BM_TickOpenReadClose(benchmark::State& state) {
  for (auto _ : state) {
    std::array<std::string, 7> owned;
    std::array<std::string_view, 7> text;
    for (size_t i = 0; i < 7; ++i) text[i] = owned[i] = read_text(kRun + kTickFiles[i]).value();
    benchmark::DoNotOptimize(parse_tick(text));
  }
}
BENCHMARK(BM_TickOpenReadClose);

void BM_ParseMemoryStatTable(benchmark::State& state) {
  std::string text = read_text(kRun + "memory.stat").value();
  for (auto _ : state) benchmark::DoNotOptimize(parse_memory_stat(text));
}
BENCHMARK(BM_ParseMemoryStatTable);

void BM_FlatValueHigh(benchmark::State& state) {
  std::string text = read_text(kRun + "memory.events").value();
  for (auto _ : state) benchmark::DoNotOptimize(flat_value(text, "high"));
}
BENCHMARK(BM_FlatValueHigh);

// A real seq_file: preopened pread of the kernel's PSI file, then parse.
void BM_KernelFilePreopened(benchmark::State& state, const char* path) {
  auto reader = FileReader::open(path);
  if (!reader) return state.SkipWithError(reader.error().message().c_str());
  std::array<char, 4096> buffer;
  for (auto _ : state) benchmark::DoNotOptimize(reader->read_raw(buffer));
}
BENCHMARK_CAPTURE(BM_KernelFilePreopened, proc_pressure_memory, "/proc/pressure/memory");
BENCHMARK_CAPTURE(BM_KernelFilePreopened, cgroup2_root_cpu_stat, "/sys/fs/cgroup/unified/cpu.stat");
BENCHMARK_CAPTURE(BM_KernelFilePreopened, proc_self_stat, "/proc/self/stat");

}  // namespace

BENCHMARK_MAIN();
