// The cgroupfs parsers on real files from a 6.12 kernel and on odd ones.
#include <gtest/gtest.h>

#include "cgroup/flat_keyed.h"
#include "cgroup/lists.h"
#include "cgroup/nested_keyed.h"
#include "cgroup/pressure.h"
#include "cgroup/single_value.h"
#include "support/fixture.h"

namespace cgmem::cgroup {
namespace {

using testing::fixture;
const std::string kRun = "cgroup-v2-6.12-throttled/lab-run1/";
const std::string kRoot = "cgroup-v2-6.12-throttled/root/";

// Single values.

TEST(LimitFile, ReadsBytes) {
  auto limit = parse_limit_file(fixture(kRun + "memory.high"), "memory.high");
  ASSERT_TRUE(limit.has_value());
  EXPECT_EQ(*limit, Limit::of(30195712));
}

TEST(LimitFile, ReadsMaxWithAndWithoutNewline) {
  EXPECT_EQ(parse_limit_file(fixture("odd/memory.max.max-newline"), "x").value(), Limit::max());
  EXPECT_EQ(parse_limit_file(fixture("odd/memory.max.max"), "x").value(), Limit::max());
  EXPECT_EQ(parse_limit_file(fixture(kRun + "memory.swap.max"), "x").value(), Limit::max());
}

TEST(LimitFile, ReadsTwoToThe64MinusOneAsANumberNotMax) {
  auto limit = parse_limit_file(fixture("odd/memory.max.u64-max"), "x");
  ASSERT_TRUE(limit.has_value());
  EXPECT_FALSE(limit->is_max());
  EXPECT_EQ(limit->bytes(), UINT64_MAX);
}

TEST(LimitFile, RejectsOverflowWordForWord) {
  auto limit = parse_limit_file(fixture("odd/memory.max.overflow"), "memory.max");
  ASSERT_FALSE(limit.has_value());
  EXPECT_EQ(limit.error().message(),
            "parse memory.max: expected a number of bytes or 'max', got '18446744073709551616'");
}

TEST(LimitFile, RejectsNegativeAndEmpty) {
  EXPECT_EQ(parse_limit_file(fixture("odd/memory.max.negative"), "memory.max").error().message(),
            "parse memory.max: expected a number of bytes or 'max', got '-1'");
  EXPECT_EQ(parse_limit_file("", "/cg/memory.low").error().message(),
            "parse /cg/memory.low: expected a number of bytes or 'max', got ''");
}

TEST(CounterFile, ReadsMemoryCurrent) {
  EXPECT_EQ(parse_counter_file(fixture(kRun + "memory.current"), "x").value(), 34140160u);
  EXPECT_EQ(parse_counter_value(fixture(kRun + "memory.current")), 34140160u);
}

TEST(CounterFile, RejectsMaxWordForWord) {
  auto value = parse_counter_file("max\n", "memory.peak");
  ASSERT_FALSE(value.has_value());
  EXPECT_EQ(value.error().message(), "parse memory.peak: expected a number, got 'max'");
  EXPECT_EQ(parse_counter_value("12 34\n"), std::nullopt);
}

// Flat-keyed.

TEST(MemoryEvents, ReadsEveryKeyOfARealFile) {
  auto events = parse_memory_events(fixture(kRun + "memory.events"));
  ASSERT_TRUE(events.has_value());
  EXPECT_EQ(events->low, 0u);
  EXPECT_EQ(events->high, 309u);
  EXPECT_EQ(events->max, 0u);
  EXPECT_EQ(events->oom, 0u);
  EXPECT_EQ(events->oom_kill, 0u);
  EXPECT_EQ(events->oom_group_kill, 0u);
  EXPECT_EQ(events->sock_throttled, std::nullopt);  // not on 6.12
  EXPECT_TRUE(events->other.empty());
  EXPECT_EQ(events->malformed, 0u);
}

TEST(MemoryEvents, LocalFileHasTheSameShape) {
  auto events = parse_memory_events(fixture(kRun + "memory.events.local"), "memory.events.local");
  ASSERT_TRUE(events.has_value());
  EXPECT_EQ(events->high, 309u);
}

TEST(MemoryEvents, MissingKeysAreEmpty) {
  auto events = parse_memory_events(fixture("odd/memory.events.missing-keys"));
  ASSERT_TRUE(events.has_value());
  EXPECT_EQ(events->high, 309u);
  EXPECT_EQ(events->max, std::nullopt);
  EXPECT_EQ(events->oom_kill, std::nullopt);
}

TEST(MemoryEvents, UnknownKeysAreKeptInOrder) {
  auto events = parse_memory_events(fixture("odd/memory.events.unknown-keys"));
  ASSERT_TRUE(events.has_value());
  EXPECT_EQ(events->sock_throttled, 2u);
  ASSERT_EQ(events->other.size(), 1u);
  EXPECT_EQ(events->other[0].first, "new_event");
  EXPECT_EQ(events->other[0].second, 7u);
}

TEST(MemoryEvents, TruncatedLastLineIsSkippedAndCounted) {
  auto events = parse_memory_events(fixture("odd/memory.events.truncated"));
  ASSERT_TRUE(events.has_value());
  EXPECT_EQ(events->oom, 0u);
  EXPECT_EQ(events->oom_kill, std::nullopt);
  EXPECT_EQ(events->malformed, 1u);
}

TEST(MemoryEvents, NoKnownKeyIsAnErrorWordForWord) {
  auto events = parse_memory_events(fixture("odd/memory.events.no-known-key"));
  ASSERT_FALSE(events.has_value());
  EXPECT_EQ(events.error().message(), "parse memory.events: no known key in 'frobs 1'");
}

TEST(MemoryEvents, EmptyFileIsAnErrorWordForWord) {
  auto events = parse_memory_events(fixture("odd/empty"), "/cg/memory.events");
  ASSERT_FALSE(events.has_value());
  EXPECT_EQ(events.error().message(), "parse /cg/memory.events: the file is empty");
}

TEST(FlatValue, FindsOneKeyWithoutConfusingPrefixes) {
  std::string text = fixture(kRun + "memory.events");
  EXPECT_EQ(flat_value(text, "high"), 309u);
  EXPECT_EQ(flat_value(text, "oom"), 0u);  // not "oom_kill" or "oom_group_kill"
  EXPECT_EQ(flat_value(text, "oom_kill"), 0u);
  EXPECT_EQ(flat_value(text, "hig"), std::nullopt);
  EXPECT_EQ(flat_value("high\n", "high"), std::nullopt);
  EXPECT_EQ(flat_value("", "high"), std::nullopt);
}

TEST(ForEachFlat, VisitsPairsInFileOrder) {
  std::string keys;
  uint64_t sum = 0;
  size_t malformed = for_each_flat("a 1\nb x\nc 2\n", [&](std::string_view key, uint64_t value) {
    keys += key;
    sum += value;
  });
  EXPECT_EQ(keys, "ac");
  EXPECT_EQ(sum, 3u);
  EXPECT_EQ(malformed, 1u);
}

struct ThreeKeys {
  uint64_t a = 0, b = 0, c = 0;
};
constexpr FlatKey<ThreeKeys, uint64_t> kThreeKeys[] = {
    {"a", &ThreeKeys::a}, {"b", &ThreeKeys::b}, {"c", &ThreeKeys::c}};

TEST(ParseFlatInto, CountsKnownUnknownAndMalformedAndSaysWhichRowsItFilled) {
  ThreeKeys out;
  auto counts = parse_flat_into<ThreeKeys, uint64_t>(out, kThreeKeys,
                                                     "a 1\nzzz 5\nc x\nnospace\n c 4\nc 3\n\n");
  EXPECT_EQ(out.a, 1u);
  EXPECT_EQ(out.b, 0u);  // not in the text: untouched
  EXPECT_EQ(out.c, 3u);
  EXPECT_EQ(counts.known, 2u);
  EXPECT_EQ(counts.unknown, 1u);
  EXPECT_EQ(counts.malformed, 3u);  // "c x", "nospace", " c 4"
  EXPECT_TRUE(counts.has(0));
  EXPECT_FALSE(counts.has(1));
  EXPECT_TRUE(counts.has(2));
}

TEST(ParseFlatInto, TheLastLineOfAKeyWins) {
  ThreeKeys out;
  parse_flat_into<ThreeKeys, uint64_t>(out, kThreeKeys, "b 7\nb 9\n");
  EXPECT_EQ(out.b, 9u);
}

TEST(ParseFlatInto, AnUnknownKeysValueIsLeftToTheCaller) {
  ThreeKeys out;
  EXPECT_EQ((parse_flat_into<ThreeKeys, uint64_t>(out, kThreeKeys, "zzz lots\n").unknown), 1u);
  std::string seen;
  auto counts = parse_flat_into<ThreeKeys, uint64_t>(
      out, kThreeKeys, "zzz lots\nyyy 2\n", [&](std::string_view key, std::string_view value) {
        seen += std::string(key) + "=" + std::string(value) + ";";
        return to_u64(value).has_value();
      });
  EXPECT_EQ(seen, "zzz=lots;yyy=2;");
  EXPECT_EQ(counts.unknown, 1u);
  EXPECT_EQ(counts.malformed, 1u);
}

TEST(EventCounts, ReadsTheFixtureAsPlainNumbers) {
  EventCounts events;
  auto counts = parse_event_counts(events, fixture(kRun + "memory.events"));
  EXPECT_EQ(events.high, 309u);
  EXPECT_EQ(events.oom_kill, 0u);
  EXPECT_EQ(counts.known, 6u);
  EXPECT_EQ(counts.malformed, 0u);
  auto checked = parse_memory_events(fixture(kRun + "memory.events"));
  ASSERT_TRUE(checked);
  EXPECT_EQ(checked->high, events.high);  // the two forms agree
  EXPECT_EQ(checked->max, events.max);
}

TEST(SwapEventCounts, ReadsHighMaxFail) {
  SwapEventCounts swap;
  auto counts = parse_swap_event_counts(swap, "high 34\nmax 2\nfail 1\n");
  EXPECT_EQ(swap.high, 34u);
  EXPECT_EQ(swap.max, 2u);
  EXPECT_EQ(swap.fail, 1u);
  EXPECT_EQ(counts.known, 3u);
}

TEST(PressureLines, KeepsTheWellFormedLinesAndCountsTheRest) {
  auto p = parse_pressure_lines("some avg10=1.50 avg60=0.00 avg300=0.00 total=42\nfull avg10=x\nodd 1\n");
  ASSERT_TRUE(p.some);
  EXPECT_EQ(p.some->total_usec, 42u);
  EXPECT_FALSE(p.full);
  EXPECT_EQ(p.malformed, 2u);
  EXPECT_FALSE(parse_pressure_lines("").some);
}

TEST(SingleValue, LimitValueTakesBytesOrMax) {
  EXPECT_EQ(parse_limit_value("max\n"), Limit::max());
  EXPECT_EQ(parse_limit_value("4194304\n"), Limit::of(4194304));
  EXPECT_EQ(parse_limit_value("4M\n"), std::nullopt);
  EXPECT_EQ(parse_counter_value("-1\n"), std::nullopt);
}

TEST(CgroupEvents, ReadsPopulated) {
  auto events = parse_cgroup_events(fixture(kRun + "cgroup.events"));
  ASSERT_TRUE(events.has_value());
  EXPECT_EQ(events->populated, 1u);
  EXPECT_EQ(events->frozen, 0u);
}

TEST(CgroupEvents, GarbageIsAnErrorWordForWord) {
  auto events = parse_cgroup_events("populated\n", "cgroup.events");
  ASSERT_FALSE(events.has_value());
  EXPECT_EQ(events.error().message(), "parse cgroup.events: no known key in 'populated'");
}

TEST(MemoryStat, ReadsARealFileAndKeepsTheRest) {
  auto stat = parse_memory_stat(fixture(kRun + "memory.stat"));
  ASSERT_TRUE(stat.has_value());
  EXPECT_EQ(stat->anon, 33566720u);
  EXPECT_EQ(stat->file, 0u);
  EXPECT_EQ(stat->kernel, 135168u);
  EXPECT_EQ(stat->pagetables, 102400u);
  EXPECT_EQ(stat->active_anon, 33562624u);
  EXPECT_EQ(stat->slab, 22672u);
  EXPECT_EQ(stat->workingset_nodereclaim, 64u);
  EXPECT_EQ(stat->pgscan, 4096u);
  EXPECT_EQ(stat->pgsteal_direct, 4096u);
  EXPECT_EQ(stat->pgfault, 8349u);
  EXPECT_EQ(stat->zswap, std::nullopt);  // no zswap keys on this kernel config
  EXPECT_EQ(stat->malformed, 0u);
  // pgdemote_* (3), pgpromote_success, pg{scan,steal}_khugepaged, pglazyfree{,d},
  // swp{in,out}_zero, thp_collapse_alloc, thp_swpout{,_fallback}, numa_* (3).
  EXPECT_EQ(stat->other.size(), 16u);
  EXPECT_EQ(stat->other.front().first, "pgdemote_kswapd");
  EXPECT_EQ(stat->other.back().first, "numa_hint_faults");
}

TEST(MemoryStat, EmptyIsAnErrorWordForWord) {
  EXPECT_EQ(parse_memory_stat("\n\n").error().message(), "parse memory.stat: the file is empty");
}

// Nested-keyed.

TEST(IoMax, ReadsLimitsAndMax) {
  auto limits = parse_io_max(fixture(kRun + "io.max"));
  ASSERT_TRUE(limits.has_value());
  ASSERT_EQ(limits->size(), 1u);
  EXPECT_EQ((*limits)[0].rbps, Limit::of(104857600));
  EXPECT_EQ((*limits)[0].wbps, Limit::of(104857600));
  EXPECT_EQ((*limits)[0].riops, Limit::max());
  EXPECT_EQ((*limits)[0].wiops, Limit::max());
}

TEST(IoMax, MissingFieldsStayEmptyAndFormatRoundTrips) {
  auto limits = parse_io_max(fixture("odd/io.max.two-devices"));
  ASSERT_TRUE(limits.has_value());
  ASSERT_EQ(limits->size(), 2u);
  EXPECT_EQ((*limits)[1].wbps, Limit::of(1048576));
  EXPECT_EQ((*limits)[1].rbps, std::nullopt);
  EXPECT_EQ(format_io_max((*limits)[0]), "254:0 rbps=104857600 wbps=max riops=max wiops=1000");
  EXPECT_EQ(format_io_max((*limits)[1]), "8:0 wbps=1048576");
}

TEST(IoMax, BadDeviceIsAnErrorWordForWord) {
  auto limits = parse_io_max("sda rbps=1\n", "/cg/io.max");
  ASSERT_FALSE(limits.has_value());
  EXPECT_EQ(limits.error().message(), "parse /cg/io.max: no 'MAJ:MIN key=value' line in 'sda rbps=1'");
}

TEST(DeviceId, ParsesAndRejects) {
  EXPECT_EQ(to_device("254:0"), (DeviceId{254, 0}));
  EXPECT_EQ(to_device("254:"), std::nullopt);
  EXPECT_EQ(to_device(":1"), std::nullopt);
  EXPECT_EQ(to_device("4294967296:0"), std::nullopt);
}

// Pressure.

TEST(Pressure, ReadsSomeAndFull) {
  auto psi = parse_pressure(fixture(kRun + "memory.pressure"), "memory.pressure");
  ASSERT_TRUE(psi.has_value());
  ASSERT_TRUE(psi->some && psi->full);
  EXPECT_DOUBLE_EQ(psi->some->avg10, 48.30);
  EXPECT_DOUBLE_EQ(psi->some->avg60, 10.49);
  EXPECT_DOUBLE_EQ(psi->some->avg300, 2.26);
  EXPECT_EQ(psi->some->total_usec, 6027841u);
  EXPECT_EQ(psi->full->total_usec, 6027841u);
}

TEST(Pressure, SystemWideFileHasDifferentSomeAndFull) {
  auto psi = parse_pressure(fixture("cgroup-v2-6.12-throttled/proc/pressure-memory"), "x");
  ASSERT_TRUE(psi.has_value());
  EXPECT_DOUBLE_EQ(psi->some->avg10, 40.85);
  EXPECT_DOUBLE_EQ(psi->full->avg10, 37.50);
  EXPECT_EQ(psi->full->total_usec, 5356235u);
}

TEST(Pressure, FullMayBeAbsent) {
  auto psi = parse_pressure(fixture("odd/cpu.pressure.no-full"), "cpu.pressure");
  ASSERT_TRUE(psi.has_value());
  EXPECT_TRUE(psi->some.has_value());
  EXPECT_FALSE(psi->full.has_value());
  EXPECT_EQ(psi->some->total_usec, 123456u);
}

TEST(Pressure, TruncatedLineIsAnErrorWordForWord) {
  auto psi = parse_pressure(fixture("odd/memory.pressure.truncated"), "memory.pressure");
  ASSERT_FALSE(psi.has_value());
  EXPECT_EQ(psi.error().message(),
            "parse memory.pressure: no 'some' or 'full' line in 'some avg10=0.12 avg60=0.05'");
}

TEST(Pressure, RejectsNonDecimalAverages) {
  EXPECT_FALSE(parse_pressure_fields("avg10=inf avg60=0 avg300=0 total=1").has_value());
  EXPECT_FALSE(parse_pressure_fields("avg10=-1 avg60=0 avg300=0 total=1").has_value());
  EXPECT_TRUE(parse_pressure_fields("avg10=1 avg60=0 avg300=0 total=1").has_value());
}

// Lists.

TEST(Procs, ReadsPids) {
  auto pids = parse_procs(fixture(kRun + "cgroup.procs"));
  ASSERT_TRUE(pids.has_value());
  EXPECT_EQ(*pids, std::vector<pid_t>{158});
  auto root = parse_procs(fixture(kRoot + "cgroup.procs"));
  ASSERT_TRUE(root.has_value());
  EXPECT_EQ(root->size(), 64u);
  EXPECT_EQ(root->back(), 255);
}

TEST(Procs, EmptyIsNoPids) {
  auto pids = parse_procs(fixture("odd/empty"));
  ASSERT_TRUE(pids.has_value());
  EXPECT_TRUE(pids->empty());
}

TEST(Procs, GarbageIsAnErrorWordForWord) {
  auto pids = parse_procs("abc\n-1\n", "cgroup.procs");
  ASSERT_FALSE(pids.has_value());
  EXPECT_EQ(pids.error().message(), "parse cgroup.procs: no pid in 'abc'");
}

TEST(Controllers, ReadsWords) {
  EXPECT_EQ(parse_controllers(fixture(kRun + "cgroup.controllers")),
            (std::vector<std::string>{"cpu", "io", "memory"}));
  EXPECT_TRUE(parse_controllers(fixture(kRun + "cgroup.subtree_control")).empty());
  EXPECT_TRUE(has_controller(fixture(kRoot + "cgroup.subtree_control"), "memory"));
  EXPECT_FALSE(has_controller(fixture(kRoot + "cgroup.subtree_control"), "mem"));
  EXPECT_FALSE(has_controller("", "memory"));
}

}  // namespace
}  // namespace cgmem::cgroup
