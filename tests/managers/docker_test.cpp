// Docker's and Podman's flags, and runc's conversion, to cgroup v2 files.
#include <gtest/gtest.h>

#include "managers/docker.h"
#include "managers/oci.h"

namespace cgmem::managers {
namespace {

constexpr int64_t k256m = 268435456, k128m = 134217728;

const Assignment& file(const Translation& t, std::string_view name) {
  static const Assignment none;
  const Assignment* a = find(t, "container", name);
  EXPECT_NE(a, nullptr) << name;
  return a ? *a : none;
}

Translation docker(DockerInput in) {
  auto t = translate_docker(in, 4096);
  EXPECT_TRUE(t) << (t ? "" : t.error().message());
  return t.value_or(Translation{});
}

TEST(Docker, Sizes) {
  EXPECT_EQ(parse_docker_size("256m").value(), k256m);
  EXPECT_EQ(parse_docker_size("256MB").value(), k256m);
  EXPECT_EQ(parse_docker_size("256MiB").value(), k256m);
  EXPECT_EQ(parse_docker_size("256 m").value(), k256m);
  EXPECT_EQ(parse_docker_size("1.5g").value(), 1610612736);
  EXPECT_EQ(parse_docker_size("4096").value(), 4096);
  EXPECT_EQ(parse_docker_size("-1", true).value(), -1);
  EXPECT_FALSE(parse_docker_size("-1"));
  EXPECT_FALSE(parse_docker_size("1.2.3m"));
  auto bad = parse_docker_size("12x");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message(),
            "invalid suffix: 'x' (go-units sizes: a number, then b, k, m, g, t or p (any case, base 1024), "
            "optionally followed by b or ib, e.g. 256m, 256MB, 256MiB)");
}

TEST(Docker, MemoryAndReservation) {
  auto t = docker({.memory = k256m, .reservation = k128m});
  EXPECT_EQ(file(t, "memory.max").value, Limit::of(k256m));
  EXPECT_EQ(file(t, "memory.low").value, Limit::of(k128m));  // not memory.high
  EXPECT_EQ(find(t, "container", "memory.high"), nullptr);
}

TEST(Docker, SwapCases) {
  // Unset: memory+swap = 2 x memory, so swap.max = memory.
  auto unset = docker({.memory = k256m});
  EXPECT_EQ(file(unset, "memory.swap.max").value, Limit::of(k256m));
  EXPECT_EQ(file(unset, "memory.swap.max").rule,
            "--memory-swap not set: memory+swap = 2 x memory = 536870912, so swap.max = memory = 268435456");
  // Equal to memory: no swap.
  EXPECT_EQ(file(docker({.memory = k256m, .swap = k256m}), "memory.swap.max").value, Limit::of(0));
  // -1: unlimited.
  EXPECT_EQ(file(docker({.memory = k256m, .swap = -1}), "memory.swap.max").value, Limit::max());
  // Above memory: the difference.
  EXPECT_EQ(file(docker({.memory = k256m, .swap = 3 * k128m}), "memory.swap.max").value,
            Limit::of(k128m));
  // Nothing set: runc writes neither file.
  auto none = docker({});
  EXPECT_FALSE(file(none, "memory.swap.max").set);
  EXPECT_FALSE(file(none, "memory.max").set);
}

TEST(Docker, DaemonChecksWithItsMessages) {
  auto small = translate_docker({.memory = 4 << 20}, 4096);
  ASSERT_FALSE(small);
  EXPECT_EQ(small.error().message(), "Minimum memory limit allowed is 6MB");
  auto swap = translate_docker({.memory = k256m, .swap = k128m}, 4096);
  ASSERT_FALSE(swap);
  EXPECT_EQ(swap.error().message(),
            "Minimum memoryswap limit should be larger than memory limit, see usage");
  auto swap_only = translate_docker({.swap = k256m}, 4096);
  ASSERT_FALSE(swap_only);
  EXPECT_EQ(swap_only.error().message(),
            "You should always set the Memory limit when using Memoryswap limit, see usage");
  auto reservation = translate_docker({.memory = k128m, .reservation = k256m}, 4096);
  ASSERT_FALSE(reservation);
  EXPECT_EQ(reservation.error().message(),
            "Minimum memory limit can not be less than memory reservation limit, see usage");
  EXPECT_EQ(translate_docker({.memory = 6291456}, 4096).value().assignments.size(), 2u);
}

TEST(Docker, OomKillDisableIsDiscardedOnV2) {
  auto t = docker({.memory = k256m, .oom_kill_disable = true});
  EXPECT_EQ(t.notes[0],
            "--oom-kill-disable: cgroup v2 has no such knob; the daemon warns \"Your kernel does "
            "not support OomKillDisable. OomKillDisable discarded.\" (moby/moby "
            "daemon/daemon_unix.go verifyPlatformContainerResources())");
}

TEST(Podman, CgroupConfWritesMemoryHighLast) {
  auto t = translate_podman({.memory = k256m, .cgroup_conf = {{"memory.high", "241590272"},
                                                              {"memory.max", "300000000"}}},
                            4096);
  ASSERT_TRUE(t) << t.error().message();
  EXPECT_EQ(file(*t, "memory.high").value, Limit::of(241590272));
  EXPECT_EQ(file(*t, "memory.max").value, Limit::of(299999232));  // the unified value wins
  EXPECT_EQ(file(*t, "memory.max").caveats[1], "replaces the value from the spec's fields (256MiB)");
  EXPECT_FALSE(translate_docker({.cgroup_conf = {{"memory.high", "1"}}}, 4096));
  auto other = translate_podman({.cgroup_conf = {{"cpu.max", "1"}}}, 4096);
  ASSERT_FALSE(other);
  EXPECT_EQ(other.error().message(), "--cgroup-conf cpu.max=1: cgmem translates memory.* keys only");
}

TEST(Runc, SpecConversion) {
  auto spec = parse_oci_spec(R"({"linux": {"resources": {"memory": {"limit": 268435456,
      "reservation": 134217728, "swap": 268435456}, "unified": {"memory.high": "241590272"}}}})");
  ASSERT_TRUE(spec) << spec.error().message();
  auto t = translate_runc(*spec, 4096);
  ASSERT_TRUE(t);
  EXPECT_EQ(file(*t, "memory.swap.max").value, Limit::of(0));
  EXPECT_EQ(file(*t, "memory.max").value, Limit::of(k256m));
  EXPECT_EQ(file(*t, "memory.low").value, Limit::of(k128m));
  EXPECT_EQ(file(*t, "memory.high").value, Limit::of(241590272));
  auto unlimited = translate_runc({.limit = -1}, 4096);
  EXPECT_EQ(file(*unlimited, "memory.swap.max").value, Limit::max());
  EXPECT_EQ(file(*unlimited, "memory.max").value, Limit::max());
  auto no_limit = translate_runc({.swap = k256m}, 4096);
  ASSERT_FALSE(no_limit);
  EXPECT_EQ(no_limit.error().message(), "runc: unable to set swap limit without memory limit");
  EXPECT_FALSE(parse_oci_spec("{not json"));
  EXPECT_FALSE(parse_oci_spec(R"({"linux": {"resources": {"memory": {"limit": "1G"}}}})"));
}

TEST(Runc, FlagNumbers) {
  EXPECT_EQ(oci_number("", "--limit").value(), std::nullopt);
  EXPECT_EQ(oci_number("-1", "--limit").value(), -1);
  EXPECT_EQ(oci_number("268435456", "--limit").value(), 268435456);
  EXPECT_EQ(oci_number("-2", "--limit").error().message(),
            "--limit -2: not a byte count or -1 (the OCI spec's int64 bytes, e.g. 268435456)");
  EXPECT_FALSE(oci_number("256M", "--limit"));
  EXPECT_FALSE(oci_number("99999999999999999999", "--limit"));
}

}  // namespace
}  // namespace cgmem::managers
