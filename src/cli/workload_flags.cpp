#include "cli/workload_flags.h"

#include <unistd.h>

#include <algorithm>
#include <limits>

#include "cli/app.h"

namespace cgmem::cli {
namespace {

// A size flag that fills a uint64_t.
void size_flag(CLI::App& app, const char* name, uint64_t& into, const char* help) {
  app.add_option_function<std::string>(
         name, [&into](const std::string& text) { into = limit_from(text, {}).bytes(); }, help)
      ->check(size_validator({}));
}

}  // namespace

void add_workload_flags(CLI::App& app, lab::WorkloadOptions& o) {
  size_flag(app, "--target", o.target_bytes, "grow until this much is held (e.g. 40M)");
  app.get_option("--target")->required();
  size_flag(app, "--chunk", o.chunk_bytes, "bytes per operation (default 256K: 64 pages)");
  app.add_option("--churn", o.churn, "operations after growing: free one chunk, map a new one")
      ->check(whole_number(0, lab::kMaxChurn));
  app.add_option("--procs", o.procs, "split the target over this many processes")
      ->check(whole_number(1, lab::kMaxProcs));
  app.add_option("--seed", o.seed, "mulberry32 seed for the random choices")
      ->check(whole_number(0, std::numeric_limits<decltype(o.seed)>::max()));
  app.add_flag("--populate", o.populate, "map chunks with MAP_POPULATE");
  app.add_option_function<std::string>(
      "--file", [&o](const std::string& path) { o.file = path; },
      "read this file through the page cache instead (created up to --file-size)");
  size_flag(app, "--file-size", o.file_size, "size of --file");
  app.add_option_function<std::string>(
         "--set-own-high",
         [&o](const std::string& text) { o.set_own_high = limit_from(text, {}).bytes(); },
         "after growing, write this to its own memory.high; churn ops then map one page each")
      ->check(size_validator({}));
  app.add_flag("--own-code", o.own_code,
               "run from a fresh, uncached copy of the binary, so its code is charged to its cgroup");
  app.add_option_function<std::string>(
         "--own-code-size",
         [&o](const std::string& text) {
           o.own_code = true;
           o.own_code_bytes = limit_from(text, {}).bytes();
         },
         "implies --own-code: pad the copy to this size, map it executable and read one byte of every page "
         "each op, as an interpreter walks its code")
      ->check(size_validator({}));
  app.add_option_function<std::string>(
      "--cgroup-dir", [&o](const std::string& dir) { o.cgroup_dir = dir; },
      "read memory.current/memory.events here (default: the process's own cgroup)");
}

Result<lab::WorkloadOptions> parse_workload_words(const std::vector<std::string>& words, uint64_t page_size,
                                                  uint64_t ram_bytes) {
  CLI::App app("workload", "workload");
  lab::WorkloadOptions options;
  add_workload_flags(app, options);
  std::vector<std::string> reversed(words.rbegin(), words.rend());
  try {
    app.parse(reversed);
  } catch (const CLI::ParseError& e) {
    return fail(std::string("workload options after '--': ") + e.what());
  }
  auto valid = lab::validate(options, page_size, ram_bytes);
  if (!valid) return fail("workload options after '--': " + valid.error().message());
  return options;
}

}  // namespace cgmem::cli
