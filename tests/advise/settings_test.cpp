// Each manager's settings from `cgmem advise`, translated back through
// src/managers (what `cgmem translate` runs): the recommended limits again,
// within a page (a MiB for Nomad and Slurm, which take MiB).
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "advise/fake_runs.h"
#include "advise/recommend.h"
#include "advise/settings.h"
#include "managers/compose.h"
#include "managers/docker.h"
#include "managers/kubelet.h"
#include "managers/nomad.h"
#include "managers/slurm.h"
#include "managers/systemd.h"
#include "report/read_run.h"
#include "support/temp_dir.h"

namespace cgmem::advise {
namespace {

using testing::FakeRun;
using testing::kMiB;
constexpr uint64_t kPage = 4096;

Advice advice(const FakeRun& f, Options o = {}) {
  cgmem::testing::TempDir tmp;
  auto run = report::read_run(f.write(tmp.dir() / "run-r1"));
  EXPECT_TRUE(run);
  auto u = usage_of(*run);
  EXPECT_TRUE(u) << u.error().message();
  return recommend(*u, {u->working_set}, o);
}

const Setting& setting(const std::vector<Setting>& all, std::string_view manager) {
  for (const Setting& s : all)
    if (s.manager == manager) return s;
  throw std::runtime_error("no setting for " + std::string(manager));
}

std::string text(const Setting& s) {
  std::string out;
  for (const std::string& line : s.lines) out += line + "\n";
  return out;
}

uint64_t value(const managers::Translation& t, std::string_view scope, std::string_view file) {
  const managers::Assignment* a = managers::find(t, scope, file);
  EXPECT_TRUE(a && a->set && !a->value.is_max()) << scope << " " << file;
  return a && a->set ? a->value.bytes() : 0;
}

void expect_within(uint64_t got, uint64_t want, uint64_t unit, const char* what) {
  EXPECT_GE(got + unit, want) << what;
  EXPECT_LE(got, want + unit) << what;
}

class AdviseSettings : public ::testing::TestWithParam<double> {  // the crawl: memory.high or none
 protected:
  void SetUp() override {
    a_ = GetParam() > 0 ? advice(FakeRun{}, {.crawl_s = GetParam()}) : advice(FakeRun{}, {.headroom = 0.02, .high_margin = 0.01});
    settings_ = settings_for(a_, {.working_set = a_.working_set_bytes, .kubernetes_minor = 36});
  }
  Advice a_;
  std::vector<Setting> settings_;
};

TEST_P(AdviseSettings, SystemdsDropInGivesTheLimitsBack) {
  auto unit = managers::parse_unit_file(text(setting(settings_, "systemd")), "app.service");
  ASSERT_TRUE(unit) << unit.error().message();
  auto t = managers::translate_systemd({.unit = *unit});
  ASSERT_TRUE(t) << t.error().message();
  EXPECT_EQ(value(*t, "unit", "memory.max"), a_.memory_max_bytes);
  if (a_.memory_high_bytes) {
    EXPECT_EQ(value(*t, "unit", "memory.high"), *a_.memory_high_bytes);
  } else {
    const managers::Assignment* high = managers::find(*t, "unit", "memory.high");
    EXPECT_TRUE(!high || !high->set);
  }
}

TEST_P(AdviseSettings, KubernetesRequestsLimitsAndFactorGiveTheLimitsBackOnEachVersion) {
  for (int minor : {22, 26, 27, 36, 37}) {
    auto s = setting(settings_for(a_, {.working_set = a_.working_set_bytes, .kubernetes_minor = minor}), "kubernetes");
    std::string pod = "kind: Pod\nmetadata: {name: app}\nspec:\n  containers:\n  - name: app\n";
    for (const std::string& line : s.lines)
      if (!line.starts_with("#")) pod += "    " + line + "\n";
    auto parsed = managers::parse_pod_yaml(pod, "pod.yaml");
    ASSERT_TRUE(parsed) << parsed.error().message() << "\n" << pod;
    managers::KubeletConfig k{.minor = minor, .memory_qos = a_.memory_high_bytes.has_value()};
    if (s.json["memory_throttling_factor"].is_number()) k.factor = s.json["memory_throttling_factor"].get<double>();
    auto config = managers::resolve_kubelet_config(k);
    ASSERT_TRUE(config) << config.error().message();
    auto t = managers::translate_kubelet(*config, *parsed);
    ASSERT_TRUE(t) << t.error().message();
    EXPECT_EQ(value(*t, "container app", "memory.max"), a_.memory_max_bytes) << minor;
    if (a_.memory_high_bytes) {
      ASSERT_TRUE(k.factor) << minor;
      expect_within(value(*t, "container app", "memory.high"), *a_.memory_high_bytes, kPage, "memory.high");
      EXPECT_GE(value(*t, "container app", "memory.high"), *a_.memory_high_bytes) << minor;
    } else {
      const managers::Assignment* high = managers::find(*t, "container app", "memory.high");
      EXPECT_TRUE(!high || !high->set) << minor;
    }
  }
}

TEST_P(AdviseSettings, DockerPodmanAndComposeGiveMemoryMaxAndPodmanMemoryHigh) {
  auto docker = managers::translate_docker({.memory = static_cast<int64_t>(a_.memory_max_bytes)}, kPage);
  ASSERT_TRUE(docker);
  const Setting& d = setting(settings_, "docker");
  EXPECT_EQ(d.json["memory"].get<uint64_t>(), a_.memory_max_bytes);
  EXPECT_EQ(value(*docker, managers::scopes(*docker).front(), "memory.max"), a_.memory_max_bytes);
  EXPECT_EQ(d.caveats.empty(), !a_.memory_high_bytes) << "Docker cannot express memory.high";

  const Setting& p = setting(settings_, "podman");
  managers::DockerInput in{.memory = p.json["memory"].get<int64_t>()};
  for (auto& [file, v] : p.json["cgroup_conf"].items()) in.cgroup_conf.emplace_back(file, std::to_string(v.get<uint64_t>()));
  EXPECT_NE(p.lines[0].find(fmt::format("--memory {}", a_.memory_max_bytes)), std::string::npos) << p.lines[0];
  auto podman = managers::translate_podman(in, kPage);
  ASSERT_TRUE(podman) << podman.error().message();
  std::string scope = managers::scopes(*podman).front();
  EXPECT_EQ(value(*podman, scope, "memory.max"), a_.memory_max_bytes);
  if (a_.memory_high_bytes) {
    EXPECT_EQ(value(*podman, scope, "memory.high"), *a_.memory_high_bytes);
  }

  auto services = managers::parse_compose_yaml(text(setting(settings_, "compose")), "compose.yaml");
  ASSERT_TRUE(services) << services.error().message();
  auto compose = managers::translate_compose(*services, "", kPage);
  ASSERT_TRUE(compose) << compose.error().message();
  EXPECT_EQ(value(*compose, "service app", "memory.max"), a_.memory_max_bytes);
}

TEST_P(AdviseSettings, NomadAndSlurmGiveTheLimitsBackWithinAMiB) {
  const Setting& n = setting(settings_, "nomad");
  auto nomad = managers::translate_nomad({.memory_mb = n.json["memory"].get<int64_t>(),
                                          .memory_max_mb = n.json["memory_max"].get<int64_t>()},
                                         kPage);
  ASSERT_TRUE(nomad) << nomad.error().message();
  uint64_t max = value(*nomad, managers::scopes(*nomad).front(), "memory.max");
  EXPECT_GE(max, a_.memory_max_bytes);
  expect_within(max, a_.memory_max_bytes, kMiB, "nomad memory.max");

  const Setting& s = setting(settings_, "slurm");
  managers::SlurmInput in{.job_mb = s.json["mem_mb"].get<uint64_t>(), .real_memory_mb = 64 * 1024};
  ASSERT_TRUE(managers::apply_slurm_conf(
      fmt::format("ConstrainRAMSpace=yes\nAllowedRAMSpace={}\n", s.json["allowed_ram_space"].get<double>()), in.conf));
  auto slurm = managers::translate_slurm(in, kPage);
  ASSERT_TRUE(slurm) << slurm.error().message();
  expect_within(value(*slurm, "job", "memory.max"), a_.memory_max_bytes, kMiB, "slurm memory.max");
  expect_within(value(*slurm, "job", "memory.high"), a_.memory_high_bytes.value_or(a_.memory_max_bytes), kMiB,
                "slurm memory.high");
}

// 60 s and one hour of crawl (memory.high set), and room for none (0).
INSTANTIATE_TEST_SUITE_P(Crawls, AdviseSettings, ::testing::Values(60.0, 3600.0, 0.0));

TEST(AdviseSettingsFactor, TheFactorFollowsEachVersionsFormula) {
  // 1.27+: request + f x (limit - request).
  EXPECT_DOUBLE_EQ(*throttling_factor(200, 300, 250, 36), 0.5);
  // 1.22-1.26: limit x f.
  EXPECT_DOUBLE_EQ(*throttling_factor(200, 400, 300, 26), 0.75);
  EXPECT_FALSE(throttling_factor(300, 300, 300, 36));
  EXPECT_FALSE(throttling_factor(200, 300, 400, 36)) << "above the limit";
}

}  // namespace
}  // namespace cgmem::advise
