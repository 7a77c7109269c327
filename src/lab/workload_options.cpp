#include "lab/workload_options.h"

#include <fmt/format.h>
#include <unistd.h>

#include "common/size.h"

namespace cgmem::lab {

uint64_t page_size_here() { return static_cast<uint64_t>(::sysconf(_SC_PAGESIZE)); }

uint64_t ram_here() { return static_cast<uint64_t>(::sysconf(_SC_PHYS_PAGES)) * page_size_here(); }

// ram_bytes 0: unknown, not checked.
Result<void> validate(const WorkloadOptions& o, uint64_t page_size, uint64_t ram_bytes) {
  if (o.chunk_bytes < page_size || o.chunk_bytes % page_size != 0)
    return fail(fmt::format("--chunk {} is not a whole number of {}-byte pages", o.chunk_bytes,
                            page_size));
  if (o.target_bytes < o.chunk_bytes)
    return fail(fmt::format("--target {} is smaller than one chunk ({})",
                            format_bytes(o.target_bytes), format_bytes(o.chunk_bytes)));
  if (ram_bytes != 0 && o.target_bytes > ram_bytes)
    return fail(fmt::format("--target {} is above this machine's RAM ({})", format_bytes(o.target_bytes),
                            format_bytes(ram_bytes)),
                {}, "the workload would wait on the whole machine's OOM killer; give a smaller --target");
  if (o.churn > kMaxChurn) return fail(fmt::format("--churn {} is above {}", o.churn, kMaxChurn));
  if (o.procs == 0 || o.procs > kMaxProcs)
    return fail(fmt::format("--procs {} is out of range 1 to {}", o.procs, kMaxProcs));
  if (o.target_bytes / o.procs < o.chunk_bytes)
    return fail(fmt::format("--target {} split over {} processes is less than one chunk each",
                            format_bytes(o.target_bytes), o.procs));
  if (o.file) {
    if (o.file->empty()) return fail("--file needs a path");
    if (o.file_size < o.target_bytes)
      return fail(fmt::format("--file-size {} is smaller than --target {}",
                              format_bytes(o.file_size), format_bytes(o.target_bytes)),
                  {}, "the workload reads the file up to the target; give a larger --file-size");
    if (o.populate) return fail("--populate applies to anonymous memory, not to --file");
    if (o.set_own_high) return fail("--set-own-high applies to anonymous memory, not to --file");
  } else if (o.file_size != 0) {
    return fail("--file-size needs --file");
  }
  if (o.own_code_bytes != 0 && !o.own_code) return fail("--own-code-size needs --own-code");
  if (ram_bytes != 0 && o.own_code_bytes > ram_bytes)
    return fail(fmt::format("--own-code-size {} is above this machine's RAM ({})", format_bytes(o.own_code_bytes),
                            format_bytes(ram_bytes)));
  if (o.set_own_high && *o.set_own_high < page_size)
    return fail(fmt::format("--set-own-high {} is below one page", *o.set_own_high));
  return {};
}

nlohmann::json to_json(const WorkloadOptions& o) {
  nlohmann::json out = {
      {"chunk_bytes", o.chunk_bytes}, {"target_bytes", o.target_bytes}, {"churn", o.churn},
      {"procs", o.procs},             {"seed", o.seed},                 {"populate", o.populate},
      {"file", nullptr},              {"file_size", o.file_size},       {"set_own_high", nullptr},
      {"own_code", o.own_code},       {"own_code_bytes", o.own_code_bytes}};
  if (o.file) out["file"] = *o.file;
  if (o.set_own_high) out["set_own_high"] = *o.set_own_high;
  return out;
}

}  // namespace cgmem::lab
