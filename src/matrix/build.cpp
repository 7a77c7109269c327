#include "matrix/build.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <filesystem>

#include "common/process.h"

namespace cgmem::matrix {

namespace fs = std::filesystem;

bool has_builds(const MatrixSpec& spec) {
  for (const auto& w : spec.workloads)
    if (!w.build.empty()) return true;
  return false;
}

Result<void> build_workloads(const MatrixSpec& spec, const PlanOptions& o,
                             const std::function<void(const std::string&)>& progress) {
  std::string spec_dir = fs::absolute(spec.path).parent_path().string();
  for (const auto& w : spec.workloads) {
    if (w.build.empty()) continue;
    std::string dir = workload_build_dir(o, w.name);
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) return fail(fmt::format("matrix: build {}: create {}: {}", w.name, dir, ec.message()));
    std::vector<std::string> argv;
    for (const auto& a : w.build) argv.push_back(substitute(a, o.batch_dir, dir));
    progress(fmt::format("building {}: {}", w.name, command_line(argv)));
    auto start = std::chrono::steady_clock::now();
    auto built = run_program(argv, spec_dir);
    if (!built) return std::unexpected(built.error());
    if (built->exit_code != 0) {
      // Its last lines, as a compiler's messages are read: one progress line each.
      std::string output = built->output;
      if (output.size() > 4000) output = "..." + output.substr(output.size() - 4000);
      for (size_t at = 0; at < output.size();) {
        size_t end = std::min(output.find('\n', at), output.size());
        progress(fmt::format("build {}: {}", w.name, output.substr(at, end - at)));
        at = end + 1;
      }
      return fail(fmt::format("matrix: the build of workload {} exited with {} (its output is above)", w.name, built->exit_code),
                  spec.path, "run it by hand in " + spec_dir + " to see why");
    }
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    progress(fmt::format("built {} in {:.1f} s", w.name, seconds));
  }
  return {};
}

}  // namespace cgmem::matrix
