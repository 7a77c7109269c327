// The hot-loop helpers allocate nothing: this binary replaces the global
// operator new with one that counts calls, and each test asserts the count
// did not move across the calls the sampler and the workload make per tick.
#include <gtest/gtest.h>

#include <array>
#include <new>

#include "support/count_allocations.h"

#include "cgroup/flat_keyed.h"
#include "cgroup/nested_keyed.h"
#include "cgroup/pressure.h"
#include "cgroup/reader.h"
#include "cgroup/single_value.h"
#include "support/fixture.h"
#include "proc/stat.h"
#include "proc/wchan.h"


namespace cgmem::cgroup {
namespace {

using testing::fixture_path;

const std::string kRun = "cgroup-v2-6.12-throttled/lab-run1/";

TEST(NoAllocation, TheCounterSeesAnAllocation) {
  size_t before = cgmem::testing::allocation_count();
  auto* p = new std::string(100, 'x');  // the test itself must be able to fail
  delete p;
  EXPECT_GT(cgmem::testing::allocation_count() - before, 0u);
}

TEST(NoAllocation, PreopenedReadsAndLookups) {
  auto current = FileReader::open(fixture_path(kRun + "memory.current"));
  auto events = FileReader::open(fixture_path(kRun + "memory.events"));
  auto pressure = FileReader::open(fixture_path(kRun + "memory.pressure"));
  auto io = FileReader::open(fixture_path(kRun + "io.stat"));
  auto stat = FileReader::open(fixture_path("cgroup-v2-6.12-throttled/proc/stat"));
  auto wchan = FileReader::open(fixture_path("cgroup-v2-6.12-throttled/proc/wchan"));
  ASSERT_TRUE(current && events && pressure && io && stat && wchan);
  std::array<char, 8192> buffer;
  uint64_t sum = 0;

  size_t before = cgmem::testing::allocation_count();
  for (int tick = 0; tick < 100; ++tick) {
    sum += parse_counter_value(current->read(buffer).value()).value_or(0);
    sum += flat_value(events->read_raw(buffer).value_or(""), "high").value_or(0);
    sum += parse_pressure(pressure->read(buffer).value(), "memory.pressure")->some->total_usec;
    sum += parse_pressure_lines(pressure->read(buffer).value()).some->total_usec;
    EventCounts counts;
    parse_event_counts(counts, events->read_raw(buffer).value_or(""));
    sum += counts.high;
    for_each_nested(io->read(buffer).value(),
                    [&](DeviceId, std::string_view key, std::string_view value) {
                      if (key == "rbytes") sum += to_u64(value).value_or(0);
                    });
    auto ps = proc::parse_proc_stat(stat->read(buffer).value());
    sum += ps->utime_ticks + static_cast<uint64_t>(ps->state);
    sum += proc::parse_wchan(wchan->read(buffer).value()).size();
  }
  size_t allocations = cgmem::testing::allocation_count() - before;

  EXPECT_EQ(allocations, 0u);
  EXPECT_EQ(sum, 100ull * (34140160 + 309 + 6027841 + 6027841 + 309 + 16777216 + 20 + 'D' + 27));
}

}  // namespace
}  // namespace cgmem::cgroup
