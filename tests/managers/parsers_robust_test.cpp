// Every parser of manager input takes any text without crashing or throwing:
// random strings over each parser's alphabet, and mutations of valid files.
// (Run under ASan+UBSan by scripts/test.sh.) A parse either gives a value or
// an error with a message of one printable line.
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "managers/compose.h"
#include "managers/docker.h"
#include "managers/incus.h"
#include "managers/kubelet.h"
#include "managers/oci.h"
#include "managers/quantity.h"
#include "managers/slurm.h"
#include "managers/systemd.h"

namespace cgmem::managers {
namespace {

std::string random_text(std::mt19937& rng, std::string_view alphabet, size_t max_len) {
  std::uniform_int_distribution<size_t> len(0, max_len), pick(0, alphabet.size() - 1);
  std::string s(len(rng), ' ');
  for (auto& c : s) c = alphabet[pick(rng)];
  return s;
}

std::string mutate(std::mt19937& rng, std::string s) {
  std::uniform_int_distribution<int> byte(0, 255), ops(1, 8);
  for (int i = ops(rng); i > 0 && !s.empty(); --i) {
    size_t at = std::uniform_int_distribution<size_t>(0, s.size() - 1)(rng);
    switch (byte(rng) % 3) {
      case 0: s[at] = static_cast<char>(byte(rng)); break;
      case 1: s.erase(at, 1); break;
      default: s.insert(at, 1, "{}[]:-'\"\n #%"[byte(rng) % 12]);
    }
  }
  return s;
}

// A refusal is one line a terminal shows as it is: not empty, no newline,
// no raw control byte echoed from the input (what it quotes is escaped).
template <typename R>
void no_crash(const R& r) {
  if (r) return;
  const std::string message = r.error().message();
  EXPECT_FALSE(message.empty());
  for (unsigned char c : message) {
    if (c < 0x20 || c == 0x7f) {
      ADD_FAILURE() << "control byte " << int(c) << " in the message: " << message;
      return;
    }
  }
}

TEST(ParsersRobust, SizesAndQuantities) {
  std::mt19937 rng(7);
  constexpr std::string_view kAlphabet = "0123456789.-+eEkKmMgGtTpPiIbB %\u2030 ";
  for (int i = 0; i < 20000; ++i) {
    std::string s = random_text(rng, kAlphabet, 24);
    no_crash(parse_quantity(s));
    no_crash(parse_quantity_scaled(s, 3));
    no_crash(parse_systemd_size(s));
    (void)parse_permyriad(s);
    no_crash(parse_docker_size(s, true));
    no_crash(parse_incus_size(s));
    no_crash(parse_slurm_mem(s));
    no_crash(parse_kube_version(s));
  }
}

TEST(ParsersRobust, UnitFilesAndConfs) {
  std::mt19937 rng(11);
  const std::string unit = "[Service]\nMemoryHigh=241590272\nMemoryMax=\\\n 256M\nOOMPolicy=kill\n";
  const std::string conf = "ConstrainRAMSpace=yes\nAllowedRAMSpace=110\n";
  for (int i = 0; i < 5000; ++i) {
    auto parsed = parse_unit_file(mutate(rng, unit), "u");
    no_crash(parsed);
    if (parsed) no_crash(translate_systemd({.unit = *parsed, .ram = 8326963200}));
    SlurmConf c;
    no_crash(apply_slurm_conf(mutate(rng, conf), c));
  }
}

TEST(ParsersRobust, YamlAndJson) {
  std::mt19937 rng(13);
  const std::string pod =
      "kind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: a\n    resources:\n"
      "      requests: {memory: 0, cpu: 250m}\n      limits: {memory: 256Mi}\n";
  const std::string compose = "services:\n  web:\n    mem_limit: 256m\n    deploy:\n      resources:\n"
                              "        limits: {memory: 512M}\n";
  const std::string spec = R"({"linux":{"resources":{"memory":{"limit":268435456,"swap":-1},)"
                           R"("unified":{"memory.high":"241590272"}}}})";
  auto k = resolve_kubelet_config({.minor = 36, .memory_qos = true, .capacity = int64_t{1} << 33});
  for (int i = 0; i < 3000; ++i) {
    auto p = parse_pod_yaml(mutate(rng, pod), "p");
    no_crash(p);
    std::vector<std::string> notes;
    if (p) no_crash(translate_kubelet(*k, apply_api_defaults(*p, notes)));
    auto c = parse_compose_yaml(mutate(rng, compose), "c");
    no_crash(c);
    if (c) no_crash(translate_compose(*c, "", 4096));
    auto o = parse_oci_spec(mutate(rng, spec));
    no_crash(o);
    if (o) no_crash(translate_runc(*o, 4096));
  }
}

}  // namespace
}  // namespace cgmem::managers
