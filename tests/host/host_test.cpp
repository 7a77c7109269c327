// The host probe on fixture trees: a 6.12 VM guest, a hybrid v1 host like
// the build machine, a bare host; and `cgmem host` on them.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "host/json.h"
#include "host/probe.h"
#include "host/swap.h"
#include "cgroup/mountinfo.h"
#include "support/fixture.h"
#include "support/run_cgmem.h"

namespace cgmem::host {
namespace {

using testing::fixture_path;

HostRoots roots_of(const std::string& tree) {
  std::string base = fixture_path(tree);
  return {base + "/proc", base + "/sys", base + "/boot"};
}

TEST(HostProbe, AVmGuestWithAMemoryController) {
  HostRoots roots = roots_of("host-vm-6.12");
  HostFacts f = probe_host(roots);
  EXPECT_EQ(f.kernel, "6.12.117+deb12-cloud-amd64");
  EXPECT_EQ(f.hz, 250u);
  EXPECT_EQ(f.hz_source, roots.boot + "/config-6.12.117+deb12-cloud-amd64");
  EXPECT_EQ(f.page_size, static_cast<uint64_t>(::sysconf(_SC_PAGESIZE)));
  EXPECT_EQ(f.cpus, 2u);
  EXPECT_EQ(f.mem_total_bytes, 472164u * 1024);
  EXPECT_TRUE(f.swaps.empty());
  EXPECT_EQ(f.swap_total_bytes, 0u);
  EXPECT_EQ(f.zswap, false);
  EXPECT_EQ(f.thp, "never");
  EXPECT_TRUE(f.psi);
  EXPECT_EQ(f.virtualized, "tcg");  // cgmem.accel=tcg on its kernel command line
  EXPECT_EQ(f.cgroup2_mount, "/sys/fs/cgroup");
  EXPECT_EQ(f.cgroup2_enabled, (std::vector<std::string>{"cpuset", "cpu", "io", "memory", "pids"}));
  EXPECT_EQ(f.memory_v1_mount, std::nullopt);
  EXPECT_EQ(f.own_cgroup, "/lab/run1");
  EXPECT_EQ(f.own_controllers, (std::vector<std::string>{"cpu", "io", "memory"}));
  EXPECT_TRUE(f.memory_controller_usable);
  EXPECT_EQ(f.memory_reason,
            "cgmem can create child cgroups with memory limits under /sys/fs/cgroup/lab/run1");
  EXPECT_EQ(f.way_out, "");
}

TEST(HostProbe, VirtualizationFromTheCommandLineThenTheCpuFlags) {
  EXPECT_EQ(virtualization("quiet cgmem.accel=kvm\n", "flags\t\t: fpu hypervisor\n"), "kvm");
  EXPECT_EQ(virtualization("quiet", "processor\t: 0\nflags\t\t: fpu vme hypervisor lahf_lm\n"), "hypervisor");
  EXPECT_EQ(virtualization("quiet", "flags\t\t: fpu vme lahf_lm\n"), std::nullopt);
  EXPECT_EQ(virtualization("cgmem.accel=other", ""), std::nullopt);  // only kvm and tcg are ours
  EXPECT_EQ(virtualization("", "flags: hypervisorx\n"), std::nullopt);
  EXPECT_EQ(virtualization("", ""), std::nullopt);
}

TEST(HostProbe, AHybridV1HostLikeTheBuildMachine) {
  HostRoots roots = roots_of("host-hybrid-v1");
  HostFacts f = probe_host(roots);
  EXPECT_EQ(f.kernel, "6.18.44-fc-v657");
  EXPECT_EQ(f.hz, 250u);
  EXPECT_EQ(f.hz_source, roots.proc + "/config.gz");  // no /boot/config-RELEASE here
  ASSERT_EQ(f.swaps.size(), 2u);
  EXPECT_EQ(f.swaps[0].name, "/dev/vdb");
  EXPECT_EQ(f.swaps[0].type, "partition");
  EXPECT_EQ(f.swaps[0].size_bytes, 1048572u * 1024);
  EXPECT_EQ(f.swaps[0].priority, -2);
  EXPECT_EQ(f.swaps[1].used_bytes, 1024u * 1024);
  EXPECT_EQ(f.swap_total_bytes, (1048572u + 524284u) * 1024);
  EXPECT_EQ(f.zswap, std::nullopt);
  EXPECT_EQ(f.thp, "madvise");
  EXPECT_EQ(f.virtualized, "hypervisor");  // the build machine's own cpuinfo and cmdline
  EXPECT_EQ(f.cgroup2_mount, "/sys/fs/cgroup/unified");
  EXPECT_TRUE(f.cgroup2_controllers.empty());
  EXPECT_EQ(f.memory_v1_mount, "/sys/fs/cgroup/memory");
  EXPECT_EQ(f.own_cgroup, "/");
  EXPECT_FALSE(f.memory_controller_usable);
  EXPECT_EQ(f.memory_reason,
            "the cgroup2 hierarchy at /sys/fs/cgroup/unified has no memory controller; memory is "
            "bound to cgroup v1 (mounted at /sys/fs/cgroup/memory)");
  EXPECT_EQ(f.way_out,
            "run cgmem's real-kernel commands in its VM, which boots its own kernel with a cgroup "
            "v2 memory controller: cgmem vm -- COMMAND");
}

TEST(HostProbe, ABareHostSaysWhatIsMissing) {
  HostRoots roots = roots_of("host-bare");
  HostFacts f = probe_host(roots);
  EXPECT_EQ(f.kernel, "5.10.0-28-amd64");
  EXPECT_EQ(f.hz, std::nullopt);
  EXPECT_EQ(f.hz_source, "unknown");
  EXPECT_EQ(f.cpus, 0u);
  EXPECT_FALSE(f.psi);
  EXPECT_EQ(f.virtualized, std::nullopt);
  EXPECT_EQ(f.thp, "");
  EXPECT_EQ(f.cgroup2_mount, std::nullopt);
  EXPECT_EQ(f.own_cgroup, std::nullopt);
  EXPECT_FALSE(f.memory_controller_usable);
  EXPECT_EQ(f.memory_reason, "no cgroup2 file system is mounted (" + roots.proc +
                                 "/self/mountinfo); memory is bound to cgroup v1 (mounted at "
                                 "/sys/fs/cgroup/memory)");
}

TEST(HostProbe, MemoryNotEnabledForThisProcesssCgroup) {
  testing::TempDir dir;
  std::string tree = dir.copy_fixture("host-vm-6.12", "host");
  testing::spit(tree + "/sys/fs/cgroup/lab/run1/cgroup.controllers", "cpu io\n");
  HostFacts f = probe_host({tree + "/proc", tree + "/sys", tree + "/boot"});
  EXPECT_FALSE(f.memory_controller_usable);
  EXPECT_EQ(f.memory_reason,
            "the memory controller is not enabled for this process's cgroup "
            "/sys/fs/cgroup/lab/run1 (its parent's cgroup.subtree_control lacks memory)");
}

// The charge stock's slots: the patch's parameter when there, else the
// version's rule; and the patches a cgmem kernel's release names.
TEST(HostProbe, StockSlotsFromTheParameterElseTheVersion) {
  HostFacts debian = probe_host(roots_of("host-vm-6.12"));
  EXPECT_EQ(debian.stock_slots, 1u);
  EXPECT_EQ(debian.stock_slots_source, "version");
  EXPECT_TRUE(debian.kernel_patches.empty());

  testing::TempDir dir;
  std::string tree = dir.copy_fixture("host-vm-6.12", "host");
  HostRoots roots{tree + "/proc", tree + "/sys", tree + "/boot"};
  testing::spit(tree + "/proc/sys/kernel/osrelease", "6.12.117-cgmem-hz1000-throttle-slots\n");
  std::filesystem::create_directories(tree + "/sys/module/memcontrol/parameters");
  testing::spit(tree + "/sys/module/memcontrol/parameters/stock_slots", "4\n");
  HostFacts patched = probe_host(roots);
  EXPECT_EQ(patched.stock_slots, 4u);
  EXPECT_EQ(patched.stock_slots_source, "parameter");
  EXPECT_EQ(patched.kernel_patches, (std::vector<std::string>{"memory-high-throttle", "memcg-stock-slots"}));
  nlohmann::json j = host_facts_json(patched);
  EXPECT_EQ(j["stock_slots"], 4);
  EXPECT_EQ(j["stock_slots_source"], "parameter");
  EXPECT_EQ(j["kernel_patches"], nlohmann::json::array({"memory-high-throttle", "memcg-stock-slots"}));

  // A value no kernel writes is not believed: the version's rule instead.
  testing::spit(tree + "/sys/module/memcontrol/parameters/stock_slots", "9\n");
  EXPECT_EQ(probe_host(roots).stock_slots_source, "version");
  std::filesystem::remove(tree + "/sys/module/memcontrol/parameters/stock_slots");
  HostFacts unset = probe_host(roots);
  EXPECT_EQ(unset.stock_slots, 1u);
  EXPECT_EQ(unset.stock_slots_source, "version");

  testing::spit(tree + "/proc/sys/kernel/osrelease", "6.16.3-cgmem-6.16.3-hz1000-throttle-slots\n");
  HostFacts mainline = probe_host(roots);
  EXPECT_EQ(mainline.stock_slots, 7u);
  EXPECT_EQ(mainline.stock_slots_source, "version");
  EXPECT_EQ(mainline.kernel_patches, (std::vector<std::string>{"memory-high-throttle"}));  // slots: upstream

  testing::spit(tree + "/proc/sys/kernel/osrelease", "");
  HostFacts unknown = probe_host(roots);
  EXPECT_EQ(unknown.stock_slots, std::nullopt);
  EXPECT_EQ(unknown.stock_slots_source, "unknown");
  EXPECT_EQ(host_facts_json(unknown)["stock_slots"], nullptr);
}

// The swap a run is reported by: the devices' kind, zswap in front of a
// disk, vm.swappiness (host/swap.h).
TEST(HostProbe, SwapKindZswapAndSwappiness) {
  HostFacts none = probe_host(roots_of("host-vm-6.12"));
  EXPECT_EQ(none.swap_kind, "none");
  EXPECT_EQ(none.swap_setting, "none");

  testing::TempDir dir;
  std::string tree = dir.copy_fixture("host-vm-6.12", "host");
  HostRoots roots{tree + "/proc", tree + "/sys", tree + "/boot"};
  const std::string header = "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n";
  testing::spit(tree + "/proc/swaps", header + "/dev/zram0                               partition\t262140\t\t0\t\t100\n");
  std::filesystem::create_directories(tree + "/proc/sys/vm");
  testing::spit(tree + "/proc/sys/vm/swappiness", "60\n");
  HostFacts zram = probe_host(roots);
  EXPECT_EQ(zram.swap_kind, "zram");
  EXPECT_EQ(zram.swap_setting, "zram");
  EXPECT_EQ(zram.swappiness, 60u);
  ASSERT_TRUE(zram.zswap_settings);  // the fixture has zswap's enabled parameter, N, and no other
  EXPECT_FALSE(zram.zswap_settings->enabled);
  EXPECT_EQ(zram.zswap_settings->compressor, "");
  EXPECT_EQ(zram.zswap_settings->max_pool_percent, std::nullopt);

  testing::spit(tree + "/proc/swaps", header + "/vm/swapfile                            file\t\t98300\t\t0\t\t-2\n");
  std::string z = tree + "/sys/module/zswap/parameters";
  std::filesystem::create_directories(z);
  for (auto [name, value] : {std::pair{"enabled", "Y"}, {"compressor", "lzo"}, {"zpool", "zsmalloc"},
                             {"max_pool_percent", "20"}, {"accept_threshold_percent", "90"}, {"shrinker_enabled", "N"}})
    testing::spit(z + "/" + name, std::string(value) + "\n");
  HostFacts zswap = probe_host(roots);
  EXPECT_EQ(zswap.swap_kind, "disk");
  EXPECT_EQ(zswap.swap_setting, "zswap");
  ASSERT_TRUE(zswap.zswap_settings);
  EXPECT_EQ(zswap.zswap_settings->compressor, "lzo");
  EXPECT_EQ(zswap.zswap_settings->max_pool_percent, 20u);
  EXPECT_EQ(zswap.zswap_settings->shrinker_enabled, false);
  nlohmann::json j = host_facts_json(zswap);
  EXPECT_EQ(j["swap_setting"], "zswap");
  EXPECT_EQ(j["zswap_settings"]["zpool"], "zsmalloc");
  EXPECT_EQ(j["zswap_settings"]["accept_threshold_percent"], 90);
  EXPECT_EQ(j["swappiness"], 60);

  // zswap off, or on with nothing behind it but zram: not the setting.
  testing::spit(z + "/enabled", "N\n");
  EXPECT_EQ(probe_host(roots).swap_setting, "disk");
  std::filesystem::remove(z + "/shrinker_enabled");  // before 6.8
  EXPECT_EQ(host_facts_json(probe_host(roots))["zswap_settings"]["shrinker_enabled"], nullptr);
}

TEST(HostHelpers, SwapKindOfTheDevices) {
  EXPECT_EQ(swap_kind_of({}), "none");
  EXPECT_EQ(swap_kind_of({{.name = "/dev/zram0"}, {.name = "/swap.img"}}), "zram+disk");
  EXPECT_EQ(swap_kind_of({{.name = "/dev/nvme0n1p3"}}), "disk");
  ZswapSettings on{.enabled = true};
  EXPECT_EQ(swap_setting_of("zram", on), "zram");
  EXPECT_EQ(swap_setting_of("zram+disk", on), "zswap");
  EXPECT_EQ(swap_setting_of("none", on), "none");
}

TEST(HostHelpers, ReleasePatches) {
  // The version is model::parse_kernel_version's (tests/model: KernelVersion.*).
  EXPECT_EQ(release_patches("6.12.117-cgmem-hz1000"), std::vector<std::string>{});
  EXPECT_EQ(release_patches("6.12.117-cgmem-hz1000-throttle"), std::vector<std::string>{"memory-high-throttle"});
  EXPECT_EQ(release_patches("6.12.117-cgmem-hz250-slots"), std::vector<std::string>{"memcg-stock-slots"});
  EXPECT_EQ(release_patches("6.12.117-cgmem-hz1000-throttle-slots-trace"),
            (std::vector<std::string>{"memory-high-throttle", "memcg-stock-slots", "memcg-trace"}));
  EXPECT_EQ(release_patches("6.12.117+deb12-cloud-amd64"), std::vector<std::string>{});
}

TEST(HostProbe, JsonHasTheKeysOthersRelyOn) {
  nlohmann::json j = host_facts_json(probe_host(roots_of("host-hybrid-v1")));
  for (const char* key : {"kernel", "hz", "hz_source", "stock_slots", "stock_slots_source", "kernel_patches",
                          "page_size", "cpus", "mem_total_bytes",
                          "swap_total_bytes", "cgroup2_mount", "memory_controller_usable", "psi",
                          "thp", "zswap", "swaps", "memory_reason", "way_out"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  EXPECT_EQ(j["hz"], 250);
  EXPECT_EQ(j["memory_controller_usable"], false);
  EXPECT_EQ(j["zswap"], nullptr);
  EXPECT_EQ(j["swaps"][0]["name"], "/dev/vdb");
  nlohmann::json bare = host_facts_json(probe_host(roots_of("host-bare")));
  EXPECT_EQ(bare["cgroup2_mount"], nullptr);
  EXPECT_EQ(bare["hz"], nullptr);
  EXPECT_EQ(bare["hz_source"], "unknown");
}

TEST(HostHelpers, ParseTheirFiles) {
  EXPECT_EQ(config_hz("CONFIG_HZ_1000=y\nCONFIG_HZ=1000\n"), 1000u);
  EXPECT_EQ(config_hz("# CONFIG_HZ is not set\n"), std::nullopt);
  EXPECT_EQ(config_hz("CONFIG_HZ=\n"), std::nullopt);
  EXPECT_EQ(count_cpu_list("0-3,8,10-11\n"), 7u);
  EXPECT_EQ(count_cpu_list("3-1"), std::nullopt);
  EXPECT_EQ(count_cpu_list(""), std::nullopt);
  EXPECT_EQ(chosen_word("always [madvise] never"), "madvise");
  EXPECT_EQ(chosen_word("always madvise never"), "");
  EXPECT_EQ(mem_total("MemTotal:       24684092 kB\n"), 24684092ull * 1024);
  EXPECT_EQ(mem_total("MemFree: 1 kB\n"), std::nullopt);
}

TEST(Mountinfo, FindsCgroupMountsAndUnescapes) {
  auto mounts = cgroup::parse_mountinfo(
      "41 31 0:38 / /sys/fs/cgroup/uni\\040fied rw,relatime shared:9 - cgroup2 cgroup2 rw\n"
      "35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n"
      "garbage\n");
  ASSERT_EQ(mounts.size(), 2u);
  EXPECT_EQ(cgroup::cgroup2_mount(mounts), "/sys/fs/cgroup/uni fied");
  EXPECT_EQ(cgroup::cgroup1_mount(mounts, "memory"), "/sys/fs/cgroup/memory");
  EXPECT_EQ(cgroup::cgroup1_mount(mounts, "cpu"), std::nullopt);
  EXPECT_EQ(cgroup::cgroup2_mount(cgroup::parse_mountinfo("")), std::nullopt);
}

std::string run(const std::string& args) {
  auto o = testing::run_cgmem(args);
  EXPECT_EQ(o.code, 0) << args;
  return o.text;
}

TEST(HostCommand, SaysPlainlyWhatIsMissingAndExitsZero) {
  std::string base = fixture_path("host-hybrid-v1");
  std::string out = run("host --proc " + base + "/proc --sys " + base + "/sys --boot " + base + "/boot");
  EXPECT_NE(out.find("memory controller   NOT usable: the cgroup2 hierarchy at "
                     "/sys/fs/cgroup/unified has no memory controller"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("cgmem vm -- COMMAND"), std::string::npos);
  EXPECT_NE(out.find("HZ                  250 (from " + base + "/proc/config.gz)"), std::string::npos)
      << out;
  EXPECT_NE(out.find("swap                1.5GiB on /dev/vdb /swap\\040file"), std::string::npos) << out;
}

TEST(HostCommand, JsonOnAVmGuest) {
  std::string base = fixture_path("host-vm-6.12");
  auto j = nlohmann::json::parse(
      run("host --json --proc " + base + "/proc --sys " + base + "/sys --boot " + base + "/boot"));
  EXPECT_EQ(j["kernel"], "6.12.117+deb12-cloud-amd64");
  EXPECT_EQ(j["memory_controller_usable"], true);
  EXPECT_EQ(j["cgroup2_mount"], "/sys/fs/cgroup");
  EXPECT_EQ(j["way_out"], nullptr);
}

TEST(HostCommand, HelpNamesTheRootOptions) {
  std::string out = run("host --help");
  EXPECT_NE(out.find("--proc"), std::string::npos) << out;
  EXPECT_NE(out.find("--json"), std::string::npos) << out;
}

}  // namespace
}  // namespace cgmem::host
