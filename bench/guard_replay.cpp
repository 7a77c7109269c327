// Replays a run directory's samples (samples.jsonl, one every sampler
// interval) through the guard's emulate-shift, as if a guard had watched the
// run with that interval, and prints for each shift when it would have
// killed, with the costs it had measured by then. For working on the
// emulation against recorded runs (bench/guard_vs_kernel.sh's gS and kS)
// without a VM. Usage: guard_replay RUN_DIR SHIFT... [--trace]
// (--trace prints every interval over memory.high, not only the kill).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "guard/emulate.h"
#include "report/read_run.h"

using namespace cgmem;

constexpr const char* kUsage =
    "usage: guard_replay RUN_DIR SHIFT... [--trace]\n"
    "  replays RUN_DIR/samples.jsonl through emulate-shift at each SHIFT (0 to 32)\n";

int main(int argc, char** argv) {
  if (argc >= 2 && (std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0)) {
    std::fputs(kUsage, stdout);
    return 0;
  }
  if (argc < 3) {
    std::fputs(kUsage, stderr);
    return 2;
  }
  bool trace = false;
  std::vector<uint32_t> shifts;
  for (int i = 2; i < argc; ++i) {
    if (std::strcmp(argv[i], "--trace") == 0) {
      trace = true;
      continue;
    }
    char* end = nullptr;
    unsigned long shift = std::strtoul(argv[i], &end, 10);
    if (end == argv[i] || *end || shift > model::kMaxThrottleShift) {
      std::fprintf(stderr, "guard_replay: shift '%s' is not a number from 0 to 32\n%s", argv[i], kUsage);
      return 2;
    }
    shifts.push_back(uint32_t(shift));
  }
  auto run = report::read_run(argv[1]);
  if (!run) {
    std::fprintf(stderr, "guard_replay: %s\n", run.error().message().c_str());
    return 1;
  }
  const report::Meta& meta = run->meta;
  if (!meta.high || !meta.max || meta.high->is_max()) {
    std::fprintf(stderr, "guard_replay: %s has no memory.high and memory.max\n", argv[1]);
    return 1;
  }
  const model::Kernel kernel{.hz = uint32_t(meta.hz), .page_size = meta.page_size};
  const uint64_t high = meta.high->bytes();
  for (uint32_t shift : shifts) {
    guard::ShiftEmulation e;
    const report::SampleLine* previous = nullptr;
    bool killed = false;
    double longest = 0;  // the longest episode over memory.high, s
    for (const report::SampleLine& s : run->samples) {
      if (!s.memory_current || !s.memory_events.count("high")) continue;
      if (previous) {
        double dt = double(s.t_ns - previous->t_ns) / 1e9;
        uint64_t rise = s.memory_events.at("high") - previous->memory_events.at("high");
        const guard::Interval interval{
            .from = *previous->memory_current, .to = *s.memory_current, .dt = dt, .high_rise = rise};
        auto v = guard::step(e, shift, interval, *meta.high, *meta.max, kernel);
        longest = std::max(longest, e.actual_s);
        if (v && (trace || v->kill)) {
          std::printf("S=%u A=%7.2f E=%7.2f R=%7.2f cur=+%4.0f pages sleeps=%6.1f drained=%6.1f r=%6.2f/s "
                      "c=%5.2f ms a=%5.2f ms m=%5.1f%s\n",
                      shift, e.actual_s, e.emulated_s, v->remaining_s,
                      (double(*s.memory_current) - double(high)) / double(kernel.page_size), e.sleeps,
                      v->costs.drained, v->costs.drains_per_s, v->costs.per_event_s * 1e3,
                      v->costs.per_page_s * 1e3, v->sleeps_per_batch, v->kill ? " KILL" : "");
        }
        if (v && v->kill) {
          killed = true;
          break;
        }
      }
      previous = &s;
    }
    if (!killed) std::printf("S=%u no kill (the longest time over memory.high: %.1f s)\n", shift, longest);
  }
  return 0;
}
