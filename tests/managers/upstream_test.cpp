// Edge cases of systemd, Docker (go-units), Podman (crun), Compose
// (compose-go), runc, Incus, Slurm and Nomad, each with the value or the
// message the manager's own source gives; the file and function are named
// per test.
#include <gtest/gtest.h>

#include "managers/compose.h"
#include "managers/docker.h"
#include "managers/go_units.h"
#include "managers/incus.h"
#include "managers/nomad.h"
#include "managers/oci.h"
#include "managers/slurm.h"
#include "managers/systemd.h"

namespace cgmem::managers {
namespace {

constexpr int64_t kMi = int64_t{1} << 20;

std::string error_of(const Result<int64_t>& r) { return r ? "ok" : r.error().what; }

// docker/go-units size.go parseSize() with the binary map (RAMInBytes).
TEST(Upstream, GoUnitsRamInBytes) {
  EXPECT_EQ(parse_go_units_ram("256m").value(), 256 * kMi);
  EXPECT_EQ(parse_go_units_ram("256MB").value(), 256 * kMi);
  EXPECT_EQ(parse_go_units_ram("256MiB").value(), 256 * kMi);
  EXPECT_EQ(parse_go_units_ram("256 m").value(), 256 * kMi);  // number before the first space
  EXPECT_EQ(parse_go_units_ram("1e3").value(), 1000);          // ParseFloat's exponent
  EXPECT_EQ(parse_go_units_ram("1e3k").value(), 1024000);
  EXPECT_EQ(parse_go_units_ram("0.5k").value(), 512);
  EXPECT_EQ(parse_go_units_ram(".5k").value(), 512);
  EXPECT_EQ(parse_go_units_ram("5.").value(), 5);
  EXPECT_EQ(parse_go_units_ram("+5").value(), 5);
  EXPECT_EQ(parse_go_units_ram("0x1p4").value(), 16);         // a Go hex float
  EXPECT_EQ(parse_go_units_ram("1.9").value(), 1);            // int64() truncates
  EXPECT_EQ(parse_go_units_ram("1b").value(), 1);
  EXPECT_EQ(error_of(parse_go_units_ram("256Mi")), "invalid suffix: 'mi'");
  EXPECT_EQ(error_of(parse_go_units_ram("1kbb")), "invalid suffix: 'kbb'");
  EXPECT_EQ(error_of(parse_go_units_ram("1KiBB")), "invalid suffix: 'KiBB'");  // too long: as given
  EXPECT_EQ(error_of(parse_go_units_ram("1bb")), "invalid suffix: 'bb'");
  EXPECT_EQ(error_of(parse_go_units_ram("1 k")), "ok");
  EXPECT_EQ(error_of(parse_go_units_ram("1  k")), "invalid suffix: ' k'");
  EXPECT_EQ(error_of(parse_go_units_ram("-1")), "invalid size: '-1'");
  EXPECT_EQ(error_of(parse_go_units_ram("")), "invalid size: ''");
  EXPECT_EQ(error_of(parse_go_units_ram("lots")), "invalid size: 'lots'");
  EXPECT_EQ(error_of(parse_go_units_ram("1.2.3m")), "strconv.ParseFloat: parsing \"1.2.3\": invalid syntax");
  EXPECT_EQ(error_of(parse_go_units_ram("0x10")), "strconv.ParseFloat: parsing \"0x10\": invalid syntax");
  EXPECT_EQ(error_of(parse_go_units_ram("1e400")), "strconv.ParseFloat: parsing \"1e400\": value out of range");
  EXPECT_EQ(error_of(parse_go_units_ram("9e18k")),
            "invalid size: '9e18k': 2^63 bytes or more (Go's int64 conversion is undefined there)");
}

// crun's swap 0 by release: refused before 1.8.6 (what Debian 12's crun
// 1.8.1 did in the VM, tests/own_program/oci_runtime_vm_test.cpp), "no
// swap" from 1.8.6 (commit b160e2c1) and without a release given.
TEST(Upstream, CrunSwapZeroByRelease) {
  OciMemory zero{.limit = 256 * kMi, .swap = 0};
  auto newest = translate_crun(zero, 4096);
  ASSERT_TRUE(newest) << newest.error().message();
  EXPECT_EQ(find(*newest, "container", "memory.swap.max")->value, Limit::of(0));
  auto v186 = translate_crun(zero, 4096, RuntimeVersion{1, 8, 6});
  ASSERT_TRUE(v186);
  EXPECT_EQ(find(*v186, "container", "memory.swap.max")->value, Limit::of(0));
  auto v181 = translate_crun(zero, 4096, RuntimeVersion{1, 8, 1});
  ASSERT_FALSE(v181);
  EXPECT_EQ(v181.error().what, "crun 1.8.1: cannot set memory+swap limit less than the memory limit "
                               "(swap 0 means no swap from crun 1.8.6)");
  auto alone = translate_crun({.swap = 0}, 4096, RuntimeVersion{1, 8, 5});
  ASSERT_FALSE(alone);
  EXPECT_EQ(alone.error().what, "crun 1.8.5: cannot set swap limit without the memory limit "
                                "(swap 0 means no swap from crun 1.8.6)");
  // Other swaps do not depend on the release.
  auto doubled = translate_crun({.limit = 256 * kMi, .swap = 512 * kMi}, 4096, RuntimeVersion{1, 8, 1});
  ASSERT_TRUE(doubled);
  EXPECT_EQ(find(*doubled, "container", "memory.swap.max")->value, Limit::of(256 * kMi));
}

TEST(Upstream, RuntimeVersionsAsThePackagesPrintThem) {
  auto v = [](std::string_view text) {
    auto r = parse_runtime_version(text);
    return r ? fmt::format("{}.{}.{}", r->major, r->minor, r->patch) : "error: " + r.error().what;
  };
  EXPECT_EQ(v("1.8.1"), "1.8.1");
  EXPECT_EQ(v("1.8"), "1.8.0");
  EXPECT_EQ(v("crun version 1.8.1"), "1.8.1");
  EXPECT_EQ(v("1.1.5+ds1"), "1.1.5");
  EXPECT_EQ(v("1.8.1-1"), "1.8.1");
  EXPECT_EQ(v("1"), "error: runtime version \"1\": not MAJOR.MINOR[.PATCH]");
  EXPECT_EQ(v(""), "error: runtime version \"\": not MAJOR.MINOR[.PATCH]");
  EXPECT_EQ(v("1.8.x"), "error: runtime version \"1.8.x\": not MAJOR.MINOR[.PATCH]");
  EXPECT_EQ(v("9999999.1"), "error: runtime version \"9999999.1\": not MAJOR.MINOR[.PATCH]");
  EXPECT_LT((RuntimeVersion{1, 8, 1}), kCrunSwapZeroAllowed);
}

// crun src/libcrun/cgroup-resources.c write_memory_swap() and
// write_memory_resources(); podman pkg/specgenutil/specgen.go LimitToSwap().
TEST(Upstream, PodmanThroughCrun) {
  auto zero = translate_podman({.memory = 256 * kMi, .swap = 0}, 4096);
  ASSERT_TRUE(zero) << zero.error().message();
  EXPECT_EQ(find(*zero, "container", "memory.swap.max")->value, Limit::of(0));
  auto unset = translate_podman({.memory = 256 * kMi}, 4096);
  EXPECT_EQ(find(*unset, "container", "memory.swap.max")->value, Limit::of(256 * kMi));
  auto minus_one = translate_podman({.memory = 256 * kMi, .swap = -1}, 4096);
  EXPECT_FALSE(find(*minus_one, "container", "memory.swap.max")->set);
  auto oom = translate_podman({.memory = 256 * kMi, .oom_kill_disable = true}, 4096);
  ASSERT_FALSE(oom);
  EXPECT_EQ(oom.error().what, "crun: cannot disable OOM killer with cgroupv2");
  auto below = translate_podman({.memory = 256 * kMi, .swap = 128 * kMi}, 4096);
  ASSERT_FALSE(below);
  EXPECT_EQ(below.error().what, "crun: cannot set memory+swap limit less than the memory limit");
  auto alone = translate_podman({.swap = 128 * kMi}, 4096);
  ASSERT_FALSE(alone);
  EXPECT_EQ(alone.error().what, "crun: cannot set swap limit without the memory limit");
  // 2 x memory would wrap Go's int64.
  auto wrap = translate_docker({.memory = int64_t{5} << 60}, 4096);
  ASSERT_FALSE(wrap);
  EXPECT_EQ(wrap.error().what, "--memory 5764607523034234880: memory+swap = 2 x memory overflows int64");
  EXPECT_FALSE(translate_podman({.memory = int64_t{5} << 60}, 4096));
  // Docker treats --memory-swap 0 as unset (adaptContainerSettings()).
  auto docker_zero = translate_docker({.memory = 256 * kMi, .swap = 0}, 4096);
  EXPECT_EQ(find(*docker_zero, "container", "memory.swap.max")->value, Limit::of(256 * kMi));
}

// memory.swap.max is page-rounded like the other files, and a page count at
// or above PAGE_COUNTER_MAX reads back as max (mm/page_counter.c).
TEST(Upstream, KernelKeepsPagesEverywhere) {
  Translation t;
  ASSERT_TRUE(runc_assignments({.limit = 256 * kMi, .swap = 256 * kMi + 6000}, "c", 4096, t));
  const Assignment* swap = find(t, "c", "memory.swap.max");
  ASSERT_NE(swap, nullptr);
  ASSERT_EQ(swap->caveats.size(), 1u);
  EXPECT_EQ(swap->value, Limit::of(4096));
  EXPECT_EQ(swap->caveats[0], "written as 6000; the kernel keeps whole pages");
  EXPECT_TRUE(page_rounded(Limit::of(9223372036854771712ULL), 4096).is_max());  // (2^63-1)/4096 pages
  EXPECT_EQ(page_rounded(Limit::of(9223372036854771711ULL), 4096), Limit::of(9223372036854767616ULL));
  SystemdInput in;
  in.unit.properties.push_back({"MemoryMax", "8E", "-p"});
  auto big = translate_systemd(in);
  ASSERT_TRUE(big);
  const Assignment* max = find(*big, "unit", "memory.max");
  ASSERT_NE(max, nullptr);
  EXPECT_TRUE(max->value.is_max());
  ASSERT_EQ(max->caveats.size(), 1u);
  EXPECT_EQ(max->caveats[0],
            "systemd writes 9223372036854775808; at or above the kernel's page-counter maximum "
            "(mm/page_counter.c), it reads back as max");
}

// mm/memcontrol.c memory_oom_group_write() takes 0 or 1 only (found by
// fuzz_manager_json).
TEST(Upstream, OomGroupIsZeroOrOne) {
  Translation t;
  auto two = runc_assignments({.unified = {{"memory.oom.group", "2"}}}, "c", 4096, t);
  ASSERT_FALSE(two);
  EXPECT_EQ(two.error().what, "unified memory.oom.group=2: the kernel takes only 0 or 1 (EINVAL), so the "
                              "runtime fails to create the container");
  Translation one;
  ASSERT_TRUE(runc_assignments({.unified = {{"memory.oom.group", "1"}}}, "c", 4096, one));
  EXPECT_EQ(find(one, "c", "memory.oom.group")->value, Limit::of(1));
}

// systemd src/basic/parse-util.c parse_size(): strtoull() takes a '+';
// systemd-run (src/shared/bus-unit-util.c
// bus_append_unit_property_assignment()) refuses an unknown name.
TEST(Upstream, SystemdPlusAndUnknownAssignment) {
  EXPECT_EQ(parse_systemd_size("+5M").value(), 5242880u);
  EXPECT_FALSE(parse_systemd_size("-5M"));
  EXPECT_FALSE(parse_systemd_size("+-5M"));
  SystemdInput in;
  in.unit.properties.push_back({"MemoryMaxx", "1G", "-p"});
  auto t = translate_systemd(in);
  ASSERT_FALSE(t);
  EXPECT_EQ(t.error().what, "Unknown assignment: MemoryMaxx=1G");
  SystemdInput cpu;
  cpu.unit.properties.push_back({"CPUQuota", "20%", "-p"});
  EXPECT_EQ(translate_systemd(cpu).value().notes[0],
            "-p CPUQuota=: not a memory property; cgmem does not check that systemd knows it");
  auto unit = parse_unit_file("[Service]\nMemoryMaxx=1G\nCPUQuota=20%\n", "a.service");
  ASSERT_TRUE(unit);
  auto from_file = translate_systemd({.unit = *unit});
  ASSERT_TRUE(from_file);
  EXPECT_EQ(from_file->notes[0], "a.service:2: Unknown key name 'MemoryMaxx' in section 'Service', ignoring (as "
                                 "systemd does)");
}

// compose-go loader/validate.go checkConsistency().
TEST(Upstream, ComposeDistinctLimitsAreInvalid) {
  auto distinct = parse_compose_yaml(
      "services:\n  web:\n    mem_limit: 256m\n    deploy:\n      resources:\n        limits: {memory: 512M}\n",
      "c.yaml");
  ASSERT_FALSE(distinct);
  EXPECT_EQ(distinct.error().what,
            "services.web: can't set distinct values on 'mem_limit' and 'deploy.resources.limits.memory': "
            "invalid compose project");
  // A limits block without memory counts as 0, which differs too.
  EXPECT_FALSE(parse_compose_yaml(
      "services:\n  web:\n    mem_limit: 256m\n    deploy:\n      resources:\n        limits: {cpus: '1'}\n",
      "c.yaml"));
  auto same = parse_compose_yaml(
      "services:\n  web:\n    mem_limit: 256m\n    deploy:\n      resources:\n        limits: {memory: 256M}\n",
      "c.yaml");
  EXPECT_TRUE(same);
  auto reservation = parse_compose_yaml(
      "services:\n  web:\n    mem_reservation: 64m\n    deploy:\n      resources:\n        reservations: "
      "{memory: 32m}\n",
      "c.yaml");
  ASSERT_FALSE(reservation);
  EXPECT_EQ(reservation.error().what,
            "services.web: can't set distinct values on 'mem_reservation' and "
            "'deploy.resources.reservations.memory': invalid compose project");
}

// SchedMD/slurm task_cgroup_memory.c task_cgroup_memory_init(): without
// ConstrainRAMSpace, AllowedRAMSpace is 100; proc_args.c str_to_mbytes().
TEST(Upstream, Slurm) {
  SlurmInput in{.job_mb = 1000, .real_memory_mb = 16000};
  ASSERT_TRUE(apply_slurm_conf("ConstrainSwapSpace=yes\nAllowedRAMSpace=120\nAllowedSwapSpace=10\n", in.conf));
  auto t = translate_slurm(in, 4096);
  ASSERT_TRUE(t) << t.error().message();
  // memory+swap = 1000 MB x 100% + 1000 MB x 10% = 1100 MB, as memory.max too.
  EXPECT_EQ(find(*t, "job", "memory.max")->value, Limit::of(1100 * kMi));
  EXPECT_EQ(find(*t, "job", "memory.high")->value, Limit::of(1000 * kMi));
  EXPECT_EQ(find(*t, "job", "memory.swap.max")->value, Limit::of(0));
  EXPECT_EQ(parse_slurm_mem("4GB").value(), 4096u);
  EXPECT_EQ(parse_slurm_mem("4096").value(), 4096u);
  EXPECT_EQ(parse_slurm_mem("1025K").value(), 2u);
  EXPECT_FALSE(parse_slurm_mem("4GiB"));
  EXPECT_FALSE(parse_slurm_mem("-4G"));
  auto wrap = parse_slurm_mem("9999999999999T");
  ASSERT_FALSE(wrap);
  EXPECT_EQ(wrap.error().what, "--mem 9999999999999T: larger than Slurm's 64-bit count of MB");
  SlurmInput huge{.job_mb = uint64_t{1} << 50, .real_memory_mb = 16000};
  ASSERT_TRUE(apply_slurm_conf("ConstrainRAMSpace=yes", huge.conf));
  EXPECT_FALSE(translate_slurm(huge, 4096));
}

// lxc/incus driver_lxc.go initLXC(): hard mode writes memory.swap.max;
// shared/units ParseByteSizeString() and handleOverflow().
TEST(Upstream, Incus) {
  auto hard = translate_incus({.limits_memory = "256MiB"}, 4096);
  ASSERT_TRUE(hard);
  EXPECT_EQ(find(*hard, "instance", "memory.swap.max")->value, Limit::of(0));
  auto on = translate_incus({.limits_memory = "256MiB", .limits_memory_swap = "true"}, 4096);
  EXPECT_EQ(find(*on, "instance", "memory.swap.max")->value, Limit::of(0));
  auto sized = translate_incus({.limits_memory = "256MiB", .limits_memory_swap = "1GiB"}, 4096);
  EXPECT_EQ(find(*sized, "instance", "memory.swap.max")->value, Limit::of(1024 * kMi));
  auto soft = translate_incus({.limits_memory = "256MiB", .enforce = IncusEnforce::Soft}, 4096);
  EXPECT_FALSE(find(*soft, "instance", "memory.swap.max")->set);
  auto over = parse_incus_size("9999999999GiB");
  ASSERT_FALSE(over);
  EXPECT_EQ(over.error().what, "Overflow multiplying 9999999999 with 1073741824");
}

// hashicorp/nomad: memory_max = -1 (structs.MemoryNoLimit), validation,
// docker driver memoryLimits(), the executors.
TEST(Upstream, Nomad) {
  auto docker = translate_nomad({.memory_mb = 300, .memory_max_mb = -1}, 4096);
  ASSERT_TRUE(docker) << docker.error().message();
  EXPECT_FALSE(find(*docker, "container", "memory.max")->set);
  EXPECT_EQ(find(*docker, "container", "memory.low")->value, Limit::of(300 * kMi));
  auto exec = translate_nomad({.driver = NomadDriver::Exec, .memory_mb = 300, .memory_max_mb = -1}, 4096);
  ASSERT_TRUE(exec);
  EXPECT_TRUE(find(*exec, "task", "memory.max")->value.is_max());
  EXPECT_EQ(find(*exec, "task", "memory.low")->value, Limit::of(300 * kMi));
  auto raw = translate_nomad({.driver = NomadDriver::RawExec, .memory_mb = 300, .memory_max_mb = 512}, 4096);
  EXPECT_EQ(find(*raw, "task", "memory.max")->value, Limit::of(512 * kMi));
  auto small = translate_nomad({.memory_mb = 5}, 4096);
  ASSERT_FALSE(small);
  EXPECT_EQ(small.error().what, "minimum MemoryMB value is 10; got 5");
  auto below = translate_nomad({.memory_mb = 300, .memory_max_mb = 200}, 4096);
  ASSERT_FALSE(below);
  EXPECT_EQ(below.error().what, "MemoryMaxMB value (200) should be larger than MemoryMB value (300)");
  auto hard = translate_nomad({.memory_mb = 300, .memory_hard_limit_mb = 200}, 4096);
  ASSERT_FALSE(hard);
  EXPECT_EQ(hard.error().what, "task memory requirements exceed driver hard limit of 200 MB");
  EXPECT_FALSE(translate_nomad({.memory_mb = int64_t{1} << 50}, 4096));
  EXPECT_NE(docker->notes.back().find("memory_max needs memory oversubscription"), std::string::npos);
}

}  // namespace
}  // namespace cgmem::managers
