#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/app.h"
#include "common/exit_codes.h"
#include "cli/handlers.h"
#include "cli/version.h"

namespace cgmem::cli {

int run_version(std::span<char*> args) {
  CLI::App app("Print cgmem's version, git commit and binary hash.", "version");
  bool json = false;
  app.add_flag("--json", json, "print JSON");
  if (int code = parse(app, args); code >= 0) return code;

  if (json) {
    nlohmann::json out = {
        {"version", version()}, {"git_commit", git_commit()}, {"binary_hash", binary_hash()}};
    fmt::print("{}\n", out.dump(2));
  } else {
    fmt::print("cgmem {} (commit {}, binary {})\n", version(), git_commit(), binary_hash());
  }
  return kOk;
}

}  // namespace cgmem::cli
