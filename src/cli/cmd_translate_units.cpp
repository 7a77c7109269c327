// cgmem translate systemd, incus, slurm and nomad: the flags of the managers
// that are not OCI engines (a unit, an instance, a job, a task). The rules
// are in src/managers.
#include <fmt/format.h>
#include <unistd.h>

#include <memory>

#include "cli/app.h"
#include "cli/cmd_translate.h"
#include "managers/incus.h"
#include "managers/input.h"
#include "managers/nomad.h"
#include "managers/slurm.h"
#include "managers/systemd.h"

namespace cgmem::cli {
namespace {

using managers::Translation;

struct SystemdFlags {
  std::string unit_file, ram, version;
  std::vector<std::string> properties;
};

struct IncusFlags {
  managers::IncusInput input;  // all but the RAM, which is text until parsed
  std::string ram;
};

struct SlurmFlags {
  managers::SlurmInput input;  // the node's RealMemory; the rest is text until parsed
  std::string mem, cgroup_conf_file;
  std::vector<std::string> settings;
};

uint64_t this_machines_ram() {
  long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
  return pages > 0 && size > 0 ? static_cast<uint64_t>(pages) * static_cast<uint64_t>(size) : 0;
}

// --ram, or (when a percentage needs it) this machine's RAM with a note
// saying so.
std::optional<uint64_t> ram_for(const std::string& ram_flag, std::vector<std::string>& notes, bool needed) {
  if (!ram_flag.empty()) return limit_from(ram_flag, {}).bytes();
  if (!needed) return std::nullopt;
  uint64_t ram = this_machines_ram();
  notes.push_back(fmt::format("percentages are of this machine's RAM, {} bytes; --ram BYTES for another", ram));
  return ram ? std::optional<uint64_t>(ram) : std::nullopt;
}

// The note about the RAM comes after the manager's own notes.
Result<Translation> with_notes(Result<Translation> t, const std::vector<std::string>& notes) {
  if (t) t->notes.insert(t->notes.end(), notes.begin(), notes.end());
  return t;
}

Result<Translation> systemd(const SystemdFlags& f, const TranslateOutput& o) {
  managers::SystemdInput in{.page_size = o.page_size};
  if (!f.version.empty()) {
    auto v = managers::parse_systemd_version(f.version);
    if (!v) return std::unexpected(v.error());
    in.version = *v;
  }
  if (!f.unit_file.empty()) {
    auto text = managers::read_input_file(f.unit_file);
    if (!text) return std::unexpected(text.error());
    auto unit = managers::parse_unit_file(*text, f.unit_file);
    if (!unit) return std::unexpected(unit.error());
    in.unit = *unit;
  }
  for (const auto& p : f.properties) {
    auto prop = managers::parse_property_assignment(p);
    if (!prop) return std::unexpected(prop.error());
    in.unit.properties.push_back(*prop);
  }
  std::vector<std::string> notes;
  in.ram = ram_for(f.ram, notes, managers::needs_ram(in.unit));
  return with_notes(managers::translate_systemd(in), notes);
}

Result<Translation> incus(const IncusFlags& f, const TranslateOutput& o) {
  managers::IncusInput in = f.input;
  std::vector<std::string> notes;
  in.ram = ram_for(f.ram, notes, in.limits_memory.ends_with('%'));
  return with_notes(managers::translate_incus(in, o.page_size), notes);
}

// --mem, then cgroup.conf, then each -p Key=Value (later ones win).
Result<Translation> slurm(const SlurmFlags& f, const TranslateOutput& o) {
  managers::SlurmInput in = f.input;
  if (!f.mem.empty()) {
    auto mb = managers::parse_slurm_mem(f.mem);
    if (!mb) return std::unexpected(mb.error());
    in.job_mb = *mb;
  }
  if (!f.cgroup_conf_file.empty()) {
    auto text = managers::read_input_file(f.cgroup_conf_file);
    if (!text) return std::unexpected(text.error());
    if (auto r = managers::apply_slurm_conf(*text, in.conf); !r) return std::unexpected(r.error());
  }
  for (const auto& s : f.settings)
    if (auto r = managers::apply_slurm_conf(s, in.conf); !r) return std::unexpected(r.error());
  return managers::translate_slurm(in, o.page_size);
}

}  // namespace

TranslateRun define_systemd(CLI::App* sub) {
  auto f = std::make_shared<SystemdFlags>();
  sub->add_option("unit-file", f->unit_file, "a unit file ([Service], [Scope] or [Slice])");
  sub->add_option("-p,--property", f->properties, "Name=Value, as systemd-run -p (after the file)");
  sub->add_option("--ram", f->ram, "physical RAM in bytes, for N% (default: this machine's)")
      ->check(size_validator({}));
  sub->add_option("--version", f->version,
                  "systemd's release (252, or what `systemd --version` prints): its rules where they changed; "
                  "default the newest");
  return [f](const TranslateOutput& o) { return systemd(*f, o); };
}

TranslateRun define_incus(CLI::App* sub) {
  auto f = std::make_shared<IncusFlags>();
  sub->add_option("--limits-memory", f->input.limits_memory, "limits.memory (2GiB, 512MB, 25%)")->required();
  sub->add_option("--enforce", f->input.enforce, "limits.memory.enforce: hard (default) or soft")
      ->transform(one_of_names(managers::kIncusEnforceNames));
  sub->add_option("--limits-memory-swap", f->input.limits_memory_swap,
                  "limits.memory.swap: true (default), false, or a size of swap (hard mode)");
  sub->add_option("--ram", f->ram, "host RAM in bytes, for N% (default: this machine's)")->check(size_validator({}));
  return [f](const TranslateOutput& o) { return incus(*f, o); };
}

TranslateRun define_slurm(CLI::App* sub) {
  auto f = std::make_shared<SlurmFlags>();
  sub->add_option("--mem", f->mem, "the job's memory (MB, or K/M/G/T)");
  sub->add_option("--real-memory", f->input.real_memory_mb, "the node's RealMemory in MB")->required();
  sub->add_option("--cgroup-conf", f->cgroup_conf_file, "cgroup.conf");
  sub->add_option("-p,--set", f->settings, "Key=Value as in cgroup.conf (after the file)");
  return [f](const TranslateOutput& o) { return slurm(*f, o); };
}

TranslateRun define_nomad(CLI::App* sub) {
  auto in = std::make_shared<managers::NomadInput>();  // Nomad's defaults: docker, 300 MB
  sub->add_option("--driver", in->driver, "docker (default), exec or raw_exec")
      ->transform(one_of_names(managers::kNomadDriverNames));
  sub->add_option("--memory", in->memory_mb, "resources.memory in MB (default 300)");
  sub->add_option("--memory-max", in->memory_max_mb, "resources.memory_max in MB; -1: no hard limit");
  sub->add_option("--memory-hard-limit", in->memory_hard_limit_mb, "docker plugin memory_hard_limit in MB");
  return [in](const TranslateOutput& o) { return managers::translate_nomad(*in, o.page_size); };
}

}  // namespace cgmem::cli
