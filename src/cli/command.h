// The subcommand table: one row per subcommand, name, one-line summary and
// handler. Handlers take the arguments after the subcommand name.
#pragma once

#include <span>
#include <string_view>

namespace cgmem::cli {

using Handler = int (*)(std::span<char*> args);

struct Command {
  std::string_view name;
  std::string_view summary;
  Handler run;
};

// Every subcommand, in the order `cgmem --help` lists them.
std::span<const Command> commands();

// The closest command name to `typed`, for "did you mean", or empty.
std::string_view closest_command(std::string_view typed);

}  // namespace cgmem::cli
