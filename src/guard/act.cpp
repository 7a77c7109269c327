#include "guard/act.h"

#include <fmt/format.h>

#include "cgroup/cgroup.h"
#include "cgroup/files.h"

namespace cgmem::guard {
namespace {

namespace files = cgroup::files;

ActResult failed(const Error& e) { return {.result = e.vanished() ? "vanished" : "error: " + e.message()}; }

// The re-check: what the decision assumed, read again now.
ActResult recheck(const cgroup::Cgroup& cg, const Decision& d) {
  ActResult o;
  auto current = cg.read_counter(files::kMemoryCurrent);
  if (!current) return failed(current.error());
  auto high = cg.read_limit(files::kMemoryHigh);
  if (!high) return failed(high.error());
  o.current = *current;
  o.high = *high;
  if (d.verb == Verb::kill) {
    auto procs = cg.procs();
    if (!procs) return failed(procs.error());
    o.tasks = procs->size();
    if (procs->empty()) return o.result = "no tasks left now: nothing to kill", o;
    bool throttle_rule = d.evidence.throttled_s || d.evidence.shift;  // not a thrash rule's
    if (throttle_rule && (high->is_max() || *current <= high->bytes()))
      return o.result = fmt::format("not over memory.high now ({} of {}): not killed", format_bytes(*current),
                                    format_limit(*high)),
             o;
  } else if (*high != d.expected_high) {
    return o.result = fmt::format("memory.high reads {} now, not the {} the decision was made on: not written",
                                  format_limit(*high), format_limit(d.expected_high)),
           o;
  }
  o.acted = true;  // the re-check passed; act() clears it if the write fails
  return o;
}

}  // namespace

std::string write_mode_text(const model::KernelRules& r) {
  if (r.nonblocking_limit_write) return "wrote memory.high with O_NONBLOCK (no synchronous reclaim, 6.16+)";
  return fmt::format("wrote memory.high without O_NONBLOCK: {} reclaims down to a lowered memory.high in the "
                     "writer (O_NONBLOCK from 6.16)",
                     model::version_text(r.version));
}

ActResult CgroupActor::act(const Decision& d) {
  std::string path = root_ + std::string(d.row->path);
  if (d.row->path.empty() || d.row->path == "/" || d.row->path.find("/..") != std::string_view::npos)
    return {.result = "error: refused to act on '" + std::string(d.row->path) + "' (the root or outside it)"};
  auto cg = cgroup::Cgroup::open(path, *effects_);
  if (!cg) return failed(cg.error());
  if (cg->inode() != d.row->id) return {.result = "replaced: a new cgroup has this name now: not acted"};
  ActResult o = recheck(*cg, d);
  if (!o.acted) return o;
  if (d.verb == Verb::kill) {
    if (auto r = cg->kill_all(); !r) {
      ActResult f = failed(r.error());
      f.current = o.current, f.high = o.high, f.tasks = o.tasks;
      return f;
    }
    o.result = fmt::format("killed ({} tasks)", o.tasks.value_or(0));
    return o;
  }
  auto kept = cg->set_limit(files::kMemoryHigh, d.new_high, rules_.nonblocking_limit_write);
  if (!kept) {
    ActResult f = failed(kept.error());
    f.current = o.current, f.high = o.high;
    return f;
  }
  o.result = fmt::format("memory.high {} -> {}", format_limit(d.expected_high), format_limit(*kept));
  o.write_mode = write_mode_text(rules_);
  return o;
}

}  // namespace cgmem::guard
