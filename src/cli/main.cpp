// cgmem: measure, predict and watch what cgroup v2 memory limits do.
// This file only dispatches to the subcommand table in commands.cpp.
#include <fmt/format.h>

#include <exception>
#include <span>
#include <string_view>

#include "cli/app.h"
#include "cli/command.h"
#include "common/exit_codes.h"
#include "cli/version.h"

namespace {

void print_usage() {
  fmt::print(
      "cgmem {}: what cgroup v2 memory limits (memory.high, memory.max) do to a program\n\n"
      "usage: cgmem COMMAND [OPTIONS]   (cgmem COMMAND --help for its options)\n\n"
      "commands:\n",
      cgmem::version());
  for (const auto& command : cgmem::cli::commands()) {
    fmt::print("  {:<10} {}\n", command.name, command.summary);
  }
}

}  // namespace

int main(int argc, char** argv) {
  using namespace cgmem;
  using namespace cgmem::cli;
  std::span<char*> args(argv + 1, argc > 1 ? static_cast<size_t>(argc - 1) : 0);
  if (args.empty() || std::string_view(args[0]) == "--help" || std::string_view(args[0]) == "-h" ||
      std::string_view(args[0]) == "help") {
    if (args.size() >= 2 && std::string_view(args[0]) == "help") {
      char help[] = "--help";
      char* rest[] = {help};
      for (const auto& command : commands())
        if (command.name == args[1]) return command.run(std::span<char*>(rest));
    }
    print_usage();
    return args.empty() ? kUsage : kOk;
  }
  std::string_view name = args[0];
  if (name == "--version") name = "version";
  for (const auto& command : commands()) {
    if (command.name != name) continue;
    try {
      return command.run(args.subspan(1));
    } catch (const std::exception& e) {
      print_error(e.what());
      return kFailure;
    }
  }
  std::string_view guess = closest_command(name);
  if (guess.empty()) {
    print_error(fmt::format("unknown command '{}'; run 'cgmem --help' for the list", name));
  } else {
    print_error(fmt::format("unknown command '{}'; did you mean '{}'?", name, guess));
  }
  return kUsage;
}
