// Shared by cmd_translate.cpp (the command, common flags), the managers'
// flags (cmd_translate_kube.cpp, cmd_translate_oci.cpp,
// cmd_translate_units.cpp) and cmd_translate_output.cpp (table, JSON,
// verdict).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "common/error.h"
#include "managers/assignment.h"
#include "managers/verdict.h"

namespace CLI {
class App;
}

namespace cgmem::cli {

struct TranslateOutput {
  bool json = false;
  bool sources = false;                  // print each rule's source in the table
  std::optional<uint64_t> working_set;   // --working-set
  std::optional<double> alloc_rate;      // --alloc-rate, bytes/s
  std::optional<uint64_t> host_swap;     // --host-swap (else the manager's own, e.g. the kubelet's node swap)
  uint32_t hz = 1000;                    // --hz (cgmem model's default, the study's kernel)
  uint64_t page_size = 4096;
};

// Prints the translation (and the verdict when a working set is given).
void print_translation(const managers::Translation& t, const TranslateOutput& o);

// A verdict as `cgmem translate --json` and `cgmem advise --json` give it.
nlohmann::json verdict_json(const model::Verdict& v, const std::string& scope);

// One manager's subcommand: define_X() adds the manager's own flags to `sub`,
// keeps their values in its own options struct, and returns the function
// that translates them once the command line is parsed.
using TranslateRun = std::function<Result<managers::Translation>(const TranslateOutput&)>;

TranslateRun define_systemd(CLI::App* sub);
TranslateRun define_incus(CLI::App* sub);
TranslateRun define_slurm(CLI::App* sub);
TranslateRun define_nomad(CLI::App* sub);
TranslateRun define_docker(CLI::App* sub);
TranslateRun define_podman(CLI::App* sub);
TranslateRun define_compose(CLI::App* sub);
TranslateRun define_runc(CLI::App* sub);
TranslateRun define_crun(CLI::App* sub);
TranslateRun define_kubelet(CLI::App* sub);

}  // namespace cgmem::cli
