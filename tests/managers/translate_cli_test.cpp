// `cgmem translate` as a user runs it: the example commands, exit
// codes and error messages word for word.
#include <gtest/gtest.h>

#include "support/run_cgmem.h"

#include <nlohmann/json.hpp>

#include <fstream>
#include <string>

namespace {

using cgmem::testing::Output;

Output run(const std::string& args) { return cgmem::testing::run_cgmem("translate " + args); }

bool has(const Output& o, const std::string& s) { return o.text.find(s) != std::string::npos; }

TEST(TranslateCli, SystemdStudyValues) {
  auto o = run("systemd -p MemoryHigh=241590272 -p MemoryMax=256M");
  EXPECT_EQ(o.code, 0);
  EXPECT_TRUE(has(o, "unit   memory.high       241590272  230.4MiB")) << o.text;
  EXPECT_TRUE(has(o, "unit   memory.max        268435456  256MiB")) << o.text;
  auto percent = run("systemd -p MemoryHigh=3% --ram 8326963200 --json");
  EXPECT_EQ(percent.code, 0);
  EXPECT_TRUE(has(percent, "\"value\": 249806848")) << percent.text;
}

TEST(TranslateCli, DockerReservationIsMemoryLow) {
  auto o = run("docker --memory 256m --memory-reservation 128m");
  EXPECT_EQ(o.code, 0);
  EXPECT_TRUE(has(o, "container  memory.low       134217728  128MiB")) << o.text;
  EXPECT_FALSE(has(o, "memory.high ")) << o.text;
}

TEST(TranslateCli, KubeletStudyValueAndVerdict) {
  auto o = run("kubelet --version 1.36 --limit 256Mi --request 0 --factor 0.9 "
               "--feature-gate MemoryQoS=true --working-set 320MiB");
  EXPECT_EQ(o.code, 0);
  EXPECT_TRUE(has(o, "container app  memory.high       241590272  230.4MiB")) << o.text;
  EXPECT_TRUE(has(o, "verdict for a working set of 320MiB at HZ=1000 (the default, the study's kernel; "
                     "--hz for yours), for a host without swap (as the study's):")) << o.text;
  EXPECT_TRUE(has(o, "one sleep per batch:   killed 27.")) << o.text;
}

TEST(TranslateCli, KubeletPodFile) {
  std::string path = testing::TempDir() + "pod.yaml";
  std::ofstream(path) << "kind: Pod\nmetadata: {name: demo}\nspec:\n  containers:\n  - name: app\n"
                         "    resources: {limits: {memory: 256Mi}}\n";
  auto o = run("kubelet --version 1.37 --factor 0.9 --pod " + path + " --json");
  EXPECT_EQ(o.code, 0) << o.text;
  EXPECT_TRUE(has(o, "a limit without a request: the API server sets the request to the limit")) << o.text;
  EXPECT_TRUE(has(o, "\"scope\": \"pod demo\"")) << o.text;
}

TEST(TranslateCli, ErrorsWordForWord) {
  auto gb = run("systemd -p MemoryMax=1GB");
  EXPECT_EQ(gb.code, 2);
  EXPECT_EQ(gb.text,
            "cgmem: error: MemoryMax=1GB: not a size systemd accepts (systemd takes bytes or K, M, G, "
            "T, P, E (base 1024, upper case, no trailing B), a percentage of RAM, or infinity; systemd "
            "itself would log the error and ignore the line)\n");
  auto factor = run("kubelet --limit 256Mi --factor 0");
  EXPECT_EQ(factor.code, 2);
  EXPECT_EQ(factor.text,
            "cgmem: error: invalid configuration: memoryThrottlingFactor 0 must be greater than 0 and "
            "less than or equal to 1.0\n");
  auto negative = run("kubelet --limit -256Mi");
  EXPECT_EQ(negative.code, 2);
  EXPECT_EQ(negative.text,
            "cgmem: error: --limit: invalid Kubernetes quantity '-256Mi': a memory quantity cannot be "
            "negative (use e.g. 256Mi, 1Gi, 500M, 1e9 or a plain byte count)\n");
  auto small = run("docker --memory 4m");
  EXPECT_EQ(small.code, 2);
  EXPECT_EQ(small.text, "cgmem: error: Minimum memory limit allowed is 6MB\n");
  auto missing = run("compose /nonexistent/compose.yaml");
  EXPECT_EQ(missing.code, 1);
  EXPECT_EQ(missing.text, "cgmem: error: read: /nonexistent/compose.yaml: No such file or directory\n");
}

TEST(TranslateCli, NeedsAManager) {
  auto o = run("");
  EXPECT_EQ(o.code, 2);
  EXPECT_TRUE(has(o, "cgmem: error: A subcommand is required")) << o.text;
  auto help = run("--help");
  EXPECT_EQ(help.code, 0);
  EXPECT_TRUE(has(help, "kubelet")) << help.text;
}

TEST(TranslateCli, UnknownManagerIsNamed) {
  auto o = run("lxd --limits-memory 1GiB");
  EXPECT_EQ(o.code, 2);
  EXPECT_EQ(o.text,
            "cgmem: error: unknown manager 'lxd'; one of systemd, docker, podman, compose, kubelet, runc, crun, "
            "incus, slurm, nomad (cgmem translate MANAGER --help shows a manager's flags)\n");
}

TEST(TranslateCli, CrunTakesItsRelease) {
  auto newest = run("crun --limit 268435456 --swap 0");
  EXPECT_EQ(newest.code, 0) << newest.text;
  auto debian12 = run("crun --limit 268435456 --swap 0 --version 1.8.1");
  EXPECT_EQ(debian12.code, 2);
  EXPECT_NE(debian12.text.find("crun 1.8.1: cannot set memory+swap limit less than the memory limit"), std::string::npos)
      << debian12.text;
  auto bad = run("crun --limit 268435456 --version one");
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.text.find("runtime version \"one\": not MAJOR.MINOR[.PATCH]"), std::string::npos) << bad.text;
}

TEST(TranslateCli, DirectoryGivenAsAFile) {
  std::string dir = testing::TempDir();
  auto o = run("compose " + dir);
  EXPECT_EQ(o.code, 1);
  EXPECT_EQ(o.text, "cgmem: error: read: " + dir + ": Is a directory (give the file itself)\n");
}

TEST(TranslateCli, DeepYamlFailsFast) {
  std::string path = testing::TempDir() + "deep.yaml";
  std::ofstream(path) << std::string(1 << 20, '[');
  auto o = run("kubelet --pod " + path);
  EXPECT_EQ(o.code, 2);
  EXPECT_EQ(o.text, "cgmem: error: " + path +
                        ":1: YAML nested deeper than 64 levels (cgmem refuses such a document before parsing it)\n");
}

TEST(TranslateCli, UpstreamEdgeCasesWithSources) {
  auto podman = run("podman -m 256m --memory-swap 0 --sources");
  EXPECT_EQ(podman.code, 0) << podman.text;
  EXPECT_TRUE(has(podman, "container  memory.swap.max          0")) << podman.text;
  EXPECT_TRUE(has(podman, "source: containers/podman pkg/specgenutil/specgen.go getMemoryLimits(), LimitToSwap(); "
                          "containers/crun src/libcrun/cgroup-resources.c write_memory_swap()"))
      << podman.text;
  auto nomad = run("nomad --driver exec --memory 300 --memory-max -1 --json");
  EXPECT_EQ(nomad.code, 0) << nomad.text;
  EXPECT_TRUE(has(nomad, "\"value\": \"max\"")) << nomad.text;
  auto unknown = run("systemd -p MemoryMaxx=1G");
  EXPECT_EQ(unknown.code, 2);
  EXPECT_EQ(unknown.text,
            "cgmem: error: Unknown assignment: MemoryMaxx=1G (systemd-run refuses it; check the property name "
            "(systemd.resource-control(5)))\n");
}

}  // namespace

namespace {

// --hz "" and --page-size "" are errors, not 0 (as 0 they would skip their
// checks, and a working set 3.8% over memory.high would be judged "fits").
TEST(TranslateCli, EmptyHzAndPageSizeAreErrors) {
  auto hz = run("systemd -p MemoryHigh=1G --working-set 1100M --hz ''");
  EXPECT_EQ(hz.code, 2);
  EXPECT_TRUE(has(hz, "cgmem: error: --hz: '' is not a whole number")) << hz.text;
  auto page = run("systemd -p MemoryHigh=1G --working-set 1100M --page-size ''");
  EXPECT_EQ(page.code, 2);
  EXPECT_TRUE(has(page, "cgmem: error: --page-size: '' is not a whole number")) << page.text;
}

// `translate compose /dev/zero` ends at once: a file is read up to its bound.
TEST(TranslateCli, ADeviceAsTheFileEndsAtOnce) {
  auto o = cgmem::testing::run_shell("timeout 20 " + std::string(CGMEM_BINARY) + " translate compose /dev/zero 2>&1");
  EXPECT_EQ(o.code, 1) << o.text;  // 124 would be the timeout
}

}  // namespace

namespace {

// The kubelet's reservation policy and swap behaviour are read
// once, at the flag, into enums; a name the kubelet does not know is refused
// there with the names it does. Which names a version takes is still the
// kubelet's own check.
TEST(TranslateCli, EnumFlagsNameWhatTheyTake) {
  auto policy = run("kubelet --limit 256Mi --memory-reservation-policy Tiered");
  EXPECT_EQ(policy.code, 2);
  EXPECT_TRUE(has(policy, "cgmem: error: --memory-reservation-policy: 'Tiered' is not one of None, "
                          "TieredReservation\n")) << policy.text;
  auto swap = run("kubelet --limit 256Mi --swap-behavior Unlimited");
  EXPECT_EQ(swap.code, 2);
  EXPECT_TRUE(has(swap, "cgmem: error: --swap-behavior: 'Unlimited' is not one of NoSwap, LimitedSwap, "
                        "UnlimitedSwap\n")) << swap.text;
  auto tiered = run("kubelet --version 1.36 --limit 256Mi --request 128Mi --feature-gate MemoryQoS=true "
                    "--memory-reservation-policy TieredReservation");
  EXPECT_EQ(tiered.code, 0) << tiered.text;
  EXPECT_TRUE(has(tiered, "container app  memory.low        134217728  128MiB")) << tiered.text;
  auto unlimited = run("kubelet --version 1.29 --feature-gate NodeSwap=true --swap-behavior UnlimitedSwap "
                       "--limit 2Gi --request 1Gi --json");
  EXPECT_EQ(unlimited.code, 0) << unlimited.text;
  EXPECT_TRUE(has(unlimited, "\"rule\": \"UnlimitedSwap: max\"")) << unlimited.text;
  auto gone = run("kubelet --version 1.30 --swap-behavior UnlimitedSwap --limit 256Mi");
  EXPECT_EQ(gone.code, 2);
  EXPECT_TRUE(has(gone, "memorySwap.swapBehavior \"UnlimitedSwap\" must be one of: \"\", \"LimitedSwap\" or "
                        "\"NoSwap\"")) << gone.text;
  auto unset = run("kubelet --version 1.36 --swap-behavior '' --limit 256Mi");
  EXPECT_EQ(unset.code, 0) << unset.text;
  EXPECT_TRUE(has(unset, "swapBehavior unset: NoSwap (the default from 1.30), 0")) << unset.text;
  auto enforce = run("incus --limits-memory 256MB --enforce Soft");
  EXPECT_EQ(enforce.code, 2);
  EXPECT_TRUE(has(enforce, "cgmem: error: --enforce: 'Soft' is not one of hard, soft\n")) << enforce.text;
  auto soft = run("incus --limits-memory 256MB --enforce soft");
  EXPECT_EQ(soft.code, 0) << soft.text;
  EXPECT_TRUE(has(soft, "enforce=soft: no hard limit")) << soft.text;
  auto driver = run("nomad --driver qemu");
  EXPECT_EQ(driver.code, 2);
  EXPECT_TRUE(has(driver, "cgmem: error: --driver: 'qemu' is not one of docker, exec, raw_exec\n")) << driver.text;
  auto raw = run("nomad --driver raw_exec --memory 300 --memory-max 512");
  EXPECT_EQ(raw.code, 0) << raw.text;
  EXPECT_TRUE(has(raw, "nomad raw_exec")) << raw.text;
}

}  // namespace

namespace {

// The verdict with the host's swap: --host-swap, or the kubelet's node swap.
TEST(TranslateCli, VerdictWithHostSwap) {
  auto docker = run("docker --memory 256m --working-set 320MiB --host-swap 1G");
  EXPECT_EQ(docker.code, 0) << docker.text;
  EXPECT_TRUE(has(docker, "--hz for yours), for a host with 1GiB of swap:\n")) << docker.text;
  EXPECT_TRUE(has(docker, "container: swaps: 320MiB does not fit in memory.max 256MiB: 64MiB (20.0%) goes to "
                          "swap")) << docker.text;
  EXPECT_TRUE(has(docker, "in swap:               64MiB of 256MiB allowed (20.0% of the working set); "
                          "memory.current 256MiB; OOM kill at 512MiB\n")) << docker.text;
  auto kube = run("kubelet --version 1.36 --limit 2Gi --request 1Gi --swap-behavior LimitedSwap "
                  "--node-capacity 8Gi --swap-capacity 4Gi --working-set 2.25GiB");
  EXPECT_EQ(kube.code, 0) << kube.text;
  EXPECT_TRUE(has(kube, "for a host with 4GiB of swap (the node's, --swap-capacity; --host-swap for another):"))
      << kube.text;
  EXPECT_TRUE(has(kube, "container app: swaps: 2.3GiB does not fit in memory.max 2GiB: 256MiB (11.1%)")) << kube.text;
  auto bad = run("docker --memory 256m --working-set 320MiB --host-swap lots");
  EXPECT_EQ(bad.code, 2) << bad.text;
}

TEST(TranslateCli, VerdictSwapJson) {
  auto runc = run("runc --limit 268435456 --swap 536870912 --unified memory.swap.high=33554432 "
                  "--working-set 320MiB --host-swap 4G --json");
  ASSERT_EQ(runc.code, 0) << runc.text;
  auto doc = nlohmann::json::parse(runc.text);
  EXPECT_EQ(doc["verdict_assumes_no_swap"], false);
  EXPECT_EQ(doc["host_swap"], uint64_t{4} << 30);
  const auto& v = doc["verdicts"][0];
  EXPECT_EQ(v["verdict"], "throttled");
  EXPECT_EQ(v["oom_at"], 536870912);
  EXPECT_EQ(v["swap"]["memory_swap_high"], 33554432);
  EXPECT_EQ(v["swap"]["swap_allowed"], 268435456);
  EXPECT_EQ(v["swap"]["swapped"], 67108864);
  EXPECT_EQ(v["swap"]["resident"], 268435456);
  EXPECT_GT(v["swap"]["swap_sleep_ms"].get<double>(), 0);
  auto none = run("docker --memory 256m --working-set 320MiB --json");
  ASSERT_EQ(none.code, 0) << none.text;
  auto plain = nlohmann::json::parse(none.text);
  EXPECT_EQ(plain["verdict_assumes_no_swap"], true);
  EXPECT_EQ(plain["host_swap"], 0);
  EXPECT_EQ(plain["verdicts"][0]["verdict"], "oom");
  EXPECT_EQ(plain["verdicts"][0]["oom_at"], 268435456);
  EXPECT_FALSE(plain["verdicts"][0].contains("swap"));
}

}  // namespace
