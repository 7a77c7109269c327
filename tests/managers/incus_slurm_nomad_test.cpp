// Compose, Incus, Slurm and Nomad.
#include <gtest/gtest.h>

#include "managers/compose.h"
#include "managers/incus.h"
#include "managers/nomad.h"
#include "managers/slurm.h"

namespace cgmem::managers {
namespace {

TEST(Compose, ServicesAndDeployResources) {
  auto services = parse_compose_yaml(R"(
services:
  web:
    image: nginx
    mem_limit: 256m
    mem_reservation: 128m
  worker:
    image: app
    memswap_limit: -1
    deploy:
      resources:
        limits: {memory: 512M}
        reservations: {memory: 64M}
  plain:
    image: busybox
)",
                                     "compose.yaml");
  ASSERT_TRUE(services) << services.error().message();
  ASSERT_EQ(services->size(), 3u);
  auto t = translate_compose(*services, "", 4096);
  ASSERT_TRUE(t) << t.error().message();
  EXPECT_EQ(find(*t, "service web", "memory.max")->value, Limit::of(268435456));
  EXPECT_EQ(find(*t, "service web", "memory.low")->value, Limit::of(134217728));
  EXPECT_EQ(find(*t, "service web", "memory.swap.max")->value, Limit::of(268435456));
  EXPECT_EQ(find(*t, "service worker", "memory.max")->value, Limit::of(536870912));
  EXPECT_EQ(find(*t, "service worker", "memory.low")->value, Limit::of(67108864));
  EXPECT_EQ(find(*t, "service worker", "memory.swap.max")->value, Limit::max());
  EXPECT_FALSE(find(*t, "service plain", "memory.max")->set);
  auto only = translate_compose(*services, "web", 4096);
  EXPECT_EQ(scopes(*only).size(), 1u);
  auto missing = translate_compose(*services, "db", 4096);
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().message(), "no service named 'db'");
}

TEST(Compose, Errors) {
  auto small = parse_compose_yaml("services:\n  a:\n    mem_limit: 4m\n", "c.yaml");
  ASSERT_TRUE(small);
  auto t = translate_compose(*small, "", 4096);
  ASSERT_FALSE(t);
  EXPECT_EQ(t.error().message(), "service a: Minimum memory limit allowed is 6MB");
  auto bad = parse_compose_yaml("services:\n  a:\n    mem_limit: lots\n", "c.yaml");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().what, "service a: mem_limit: invalid size: 'lots'");
  EXPECT_FALSE(parse_compose_yaml("version: 3\n", "c.yaml"));
  EXPECT_FALSE(parse_compose_yaml("services: [", "c.yaml"));
}

TEST(Incus, HardAndSoft) {
  auto hard = translate_incus({.limits_memory = "256MiB"}, 4096);
  ASSERT_TRUE(hard);
  EXPECT_EQ(find(*hard, "instance", "memory.max")->value, Limit::of(268435456));
  EXPECT_FALSE(find(*hard, "instance", "memory.high")->set);
  auto soft = translate_incus({.limits_memory = "256MB", .enforce = IncusEnforce::Soft}, 4096);
  ASSERT_TRUE(soft);
  EXPECT_EQ(find(*soft, "instance", "memory.high")->value, Limit::of(256000000));
  EXPECT_FALSE(find(*soft, "instance", "memory.max")->set);
  auto percent = translate_incus({.limits_memory = "25%", .ram = 8000000000}, 4096);
  EXPECT_EQ(find(*percent, "instance", "memory.max")->rule,
            "limits.memory=25%: (RAM 8000000000 / 100) x 25 = 2000000000 (SetMemoryLimit)");
  auto bad = parse_incus_size("1.5GiB");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().what, "Invalid value: 1.5GiB");
}

// A negative, infinite, NaN or enormous value is refused and sets nothing
// (a negative MinRAMSpace once reached a cast to an unsigned size first).
TEST(Slurm, ValuesThatAreNoSizeAreRefusedAndSetNothing) {
  for (const char* line : {"MinRAMSpace=-30", "MinRAMSpace=inf", "MinRAMSpace=nan", "MinRAMSpace=1e30",
                           "AllowedRAMSpace=-1", "AllowedRAMSpace=inf", "MaxRAMPercent=nan"}) {
    SlurmConf conf;
    SlurmConf before = conf;
    EXPECT_FALSE(apply_slurm_conf(std::string(line) + "\n", conf).has_value()) << line;
    EXPECT_EQ(conf.min_ram_mb, before.min_ram_mb) << line;
  }
}

TEST(Slurm, AllowedRamSpaceAboveTheRequest) {
  SlurmInput in{.job_mb = 4096, .real_memory_mb = 16000};
  ASSERT_TRUE(apply_slurm_conf("ConstrainRAMSpace=yes\nAllowedRAMSpace=110 # a comment\n", in.conf));
  auto t = translate_slurm(in, 4096);
  ASSERT_TRUE(t) << t.error().message();
  // 4096 MB x 1.10 = 4724464025.6 -> 4724464025, kept as whole pages.
  EXPECT_EQ(find(*t, "job", "memory.max")->value, Limit::of(4724461568));
  EXPECT_EQ(find(*t, "job", "memory.high")->value, Limit::of(4294967296));
  EXPECT_EQ(find(*t, "job", "memory.swap.max"), nullptr);
}

TEST(Slurm, SwapAndDefaults) {
  SlurmInput in{.job_mb = 1024, .real_memory_mb = 8192};
  auto none = translate_slurm(in, 4096);
  EXPECT_FALSE(find(*none, "job", "memory.max")->set);
  ASSERT_TRUE(apply_slurm_conf("constrainramspace=yes\nConstrainSwapSpace=yes\nAllowedSwapSpace=50", in.conf));
  auto t = translate_slurm(in, 4096);
  EXPECT_EQ(find(*t, "job", "memory.max")->value, Limit::of(1073741824));
  EXPECT_EQ(find(*t, "job", "memory.high")->value, Limit::of(1073741824));
  EXPECT_EQ(find(*t, "job", "memory.swap.max")->value, Limit::of(536870912));
  EXPECT_EQ(parse_slurm_mem("4G").value(), 4096u);
  EXPECT_EQ(parse_slurm_mem("1500K").value(), 2u);
  EXPECT_EQ(parse_slurm_mem("512").value(), 512u);
  auto bad = parse_slurm_mem("4GiB");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message(),
            "--mem 4GiB: not a Slurm memory size (MB by default, or a K, M, G or T suffix (optionally with "
            "B), e.g. --mem 4G)");
  EXPECT_FALSE(apply_slurm_conf("AllowedRAMSpace=lots", in.conf));
}

TEST(Nomad, Drivers) {
  auto plain = translate_nomad({.memory_mb = 256}, 4096);
  ASSERT_TRUE(plain) << plain.error().message();
  EXPECT_EQ(find(*plain, "container", "memory.max")->value, Limit::of(268435456));
  EXPECT_EQ(find(*plain, "container", "memory.swap.max")->value, Limit::of(0));
  EXPECT_EQ(find(*plain, "container", "memory.low"), nullptr);
  auto oversub = translate_nomad({.memory_mb = 256, .memory_max_mb = 512}, 4096);
  EXPECT_EQ(find(*oversub, "container", "memory.max")->value, Limit::of(536870912));
  EXPECT_EQ(find(*oversub, "container", "memory.low")->value, Limit::of(268435456));
  auto exec = translate_nomad({.driver = NomadDriver::Exec, .memory_mb = 256, .memory_max_mb = 512}, 4096);
  ASSERT_TRUE(exec);
  EXPECT_EQ(find(*exec, "task", "memory.max")->value, Limit::of(536870912));
  EXPECT_EQ(find(*exec, "task", "memory.low")->value, Limit::of(268435456));
  EXPECT_FALSE(find(*exec, "task", "memory.swap.max")->set);
}

}  // namespace
}  // namespace cgmem::managers
