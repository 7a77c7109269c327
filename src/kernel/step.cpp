#include "kernel/step.h"

#include <fcntl.h>

#include <sstream>

#include "common/fd.h"
#include "common/file.h"
#include "common/process.h"

namespace cgmem::kernel {

Result<int> run_step(const StepRun& step) {
  Fd log(open(step.log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644));
  if (!log.valid()) return sys_error("open the build log", step.log);
  std::string header = "\n$";
  for (const auto& word : step.argv) header.append(" ").append(word);
  header.append("\n");
  if (auto wrote = write_all(log.get(), header); !wrote) return std::unexpected(wrote.error());
  auto child = Process::start({.argv = step.argv,
                               .cwd = step.cwd,
                               .stdout_fd = log.get(),
                               .stderr_fd = log.get(),
                               .own_group = true,
                               .what = "start " + step.argv[0]});
  if (!child) return std::unexpected(child.error());
  log.reset();
  auto last_tick = std::chrono::steady_clock::now();
  while (true) {
    if (auto code = child->wait_for(std::chrono::milliseconds(100))) return *code;
    if (step.stop && *step.stop) {
      child->stop(std::chrono::seconds(2));  // make's compilers too: the whole group
      return 128 + SIGINT;
    }
    if (step.tick && std::chrono::steady_clock::now() - last_tick >= std::chrono::seconds(1)) {
      step.tick();
      last_tick = std::chrono::steady_clock::now();
    }
  }
}

std::string error_lines(const std::string& log_text, size_t max_lines) {
  std::istringstream in(log_text);
  std::vector<std::string> errors;
  std::string line, last;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    last = line;
    if (line.find("error:") != std::string::npos || line.find("Error ") != std::string::npos ||
        line.find("*** ") != std::string::npos || line.find("No such file") != std::string::npos ||
        line.find("FAILED") != std::string::npos || line.find("failed") != std::string::npos)
      errors.push_back(line);
  }
  if (errors.empty()) return last;
  if (errors.size() > max_lines) errors.erase(errors.begin(), errors.end() - static_cast<long>(max_lines));
  std::string out;
  for (const auto& e : errors) out += (out.empty() ? "" : " | ") + e;
  return out;
}

}  // namespace cgmem::kernel
