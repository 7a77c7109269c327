// cgmem translate docker, podman, compose, runc and crun: the flags of the
// engines that hand an OCI spec to runc or crun. The rules are in
// src/managers.
#include <fmt/format.h>

#include <memory>

#include "cli/app.h"
#include "cli/cmd_translate.h"
#include "managers/compose.h"
#include "managers/docker.h"
#include "managers/input.h"
#include "managers/oci.h"

namespace cgmem::cli {
namespace {

using managers::Translation;

// docker and podman run's memory flags (podman adds --cgroup-conf).
struct DockerFlags {
  std::string memory, reservation, swap;
  bool oom_kill_disable = false;
  std::vector<std::string> cgroup_conf;
};

struct ComposeFlags {
  std::string file, service;
};

struct RuncFlags {
  std::string spec_file, limit, reservation, swap, version;
  std::vector<std::string> unified;
};

// A go-units size flag; the error names the flag and the text.
Result<std::optional<int64_t>> docker_flag(const std::string& text, const char* flag, bool minus_one) {
  if (text.empty()) return std::optional<int64_t>();
  auto v = managers::parse_docker_size(text, minus_one);
  if (!v) {
    v.error().what = fmt::format("{} {}: {}", flag, text, v.error().what);
    return std::unexpected(v.error());
  }
  return std::optional<int64_t>(*v);
}

Result<managers::DockerInput> docker_input(const DockerFlags& f) {
  managers::DockerInput in{.oom_kill_disable = f.oom_kill_disable};
  auto memory = docker_flag(f.memory, "--memory", false);
  auto reservation = docker_flag(f.reservation, "--memory-reservation", false);
  auto swap = docker_flag(f.swap, "--memory-swap", true);
  for (auto* r : {&memory, &reservation, &swap})
    if (!*r) return std::unexpected(r->error());
  in.memory = *memory, in.reservation = *reservation, in.swap = *swap;
  for (const auto& kv : f.cgroup_conf) {
    auto pair = managers::key_value(kv, "--cgroup-conf");
    if (!pair) return std::unexpected(pair.error());
    in.cgroup_conf.push_back(*pair);
  }
  return in;
}

std::shared_ptr<DockerFlags> docker_options(CLI::App* sub) {
  auto f = std::make_shared<DockerFlags>();
  sub->add_option("-m,--memory", f->memory, "memory limit (256m, 1g)");
  sub->add_option("--memory-reservation", f->reservation, "memory soft limit (memory.low on cgroup v2)");
  sub->add_option("--memory-swap", f->swap, "memory plus swap; -1 for unlimited");
  sub->add_flag("--oom-kill-disable", f->oom_kill_disable, "disable the OOM killer (no effect on cgroup v2)");
  return f;
}

// docker and podman read the same flags and differ in what they make of them.
TranslateRun docker_run(std::shared_ptr<DockerFlags> f,
                        Result<Translation> (*translate)(const managers::DockerInput&, uint64_t)) {
  return [f, translate](const TranslateOutput& o) -> Result<Translation> {
    auto in = docker_input(*f);
    if (!in) return std::unexpected(in.error());
    return translate(*in, o.page_size);
  };
}

Result<Translation> compose(const ComposeFlags& f, const TranslateOutput& o) {
  auto text = managers::read_input_file(f.file);
  if (!text) return std::unexpected(text.error());
  auto services = managers::parse_compose_yaml(*text, f.file);
  if (!services) return std::unexpected(services.error());
  return managers::translate_compose(*services, f.service, o.page_size);
}

// The spec file first; the flags replace its values, --unified adds keys.
// `runtime(memory, page_size, version)` applies one runtime's rules.
template <typename Runtime>
Result<Translation> oci_runtime(const RuncFlags& f, const TranslateOutput& o, Runtime runtime) {
  managers::OciMemory m;
  if (!f.spec_file.empty()) {
    auto text = managers::read_input_file(f.spec_file);
    if (!text) return std::unexpected(text.error());
    auto spec = managers::parse_oci_spec(*text);
    if (!spec) return std::unexpected(spec.error());
    m = *spec;
  }
  auto limit = managers::oci_number(f.limit, "--limit");
  auto reservation = managers::oci_number(f.reservation, "--reservation");
  auto swap = managers::oci_number(f.swap, "--swap");
  for (auto* r : {&limit, &reservation, &swap})
    if (!*r) return std::unexpected(r->error());
  if (*limit) m.limit = *limit;
  if (*reservation) m.reservation = *reservation;
  if (*swap) m.swap = *swap;
  for (const auto& kv : f.unified) {
    auto pair = managers::key_value(kv, "--unified");
    if (!pair) return std::unexpected(pair.error());
    m.unified.push_back(*pair);
  }
  std::optional<managers::RuntimeVersion> version;
  if (!f.version.empty()) {
    auto v = managers::parse_runtime_version(f.version);
    if (!v) return std::unexpected(v.error());
    version = *v;
  }
  return runtime(m, o.page_size, version);
}

std::shared_ptr<RuncFlags> oci_runtime_options(CLI::App* sub) {
  auto f = std::make_shared<RuncFlags>();
  sub->add_option("--spec", f->spec_file, "config.json");
  sub->add_option("--limit", f->limit, "memory.limit in bytes, -1 unlimited");
  sub->add_option("--reservation", f->reservation, "memory.reservation in bytes");
  sub->add_option("--swap", f->swap, "memory.swap (memory plus swap) in bytes, -1 unlimited");
  sub->add_option("--unified", f->unified, "FILE=VALUE in the unified map, e.g. memory.high=241590272");
  return f;
}

}  // namespace

TranslateRun define_docker(CLI::App* sub) { return docker_run(docker_options(sub), managers::translate_docker); }

TranslateRun define_podman(CLI::App* sub) {
  auto f = docker_options(sub);
  sub->add_option("--cgroup-conf", f->cgroup_conf, "KEY=VALUE written to the cgroup, e.g. memory.high=241590272");
  return docker_run(f, managers::translate_podman);
}

TranslateRun define_compose(CLI::App* sub) {
  auto f = std::make_shared<ComposeFlags>();
  sub->add_option("file", f->file, "compose.yaml")->required();
  sub->add_option("--service", f->service, "only this service");
  return [f](const TranslateOutput& o) { return compose(*f, o); };
}

// runc 1.1.5 (checked against the binary in the VM) and runc at the source
// commit docs/translate.md names follow the same rules: no --version.
TranslateRun define_runc(CLI::App* sub) {
  auto f = oci_runtime_options(sub);
  auto rules = [](const managers::OciMemory& m, uint64_t page_size, std::optional<managers::RuntimeVersion>) {
    return managers::translate_runc(m, page_size);
  };
  return [f, rules](const TranslateOutput& o) { return oci_runtime(*f, o, rules); };
}

TranslateRun define_crun(CLI::App* sub) {
  auto f = oci_runtime_options(sub);
  sub->add_option("--version", f->version,
                  "crun's release (1.8.1, or what `crun --version` prints): its rules where they changed; default the newest");
  return [f](const TranslateOutput& o) { return oci_runtime(*f, o, managers::translate_crun); };
}

}  // namespace cgmem::cli
