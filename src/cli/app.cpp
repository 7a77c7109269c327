#include "cli/app.h"

#include <fmt/format.h>

#include <algorithm>

#include "cli/exit_codes.h"

namespace cgmem::cli {

int parse(CLI::App& app, std::span<char*> args) {
  // CLI11 wants argv[0]; args holds what follows the subcommand name.
  std::vector<std::string> words(args.begin(), args.end());
  std::reverse(words.begin(), words.end());
  try {
    app.parse(words);
  } catch (const CLI::CallForHelp&) {
    fmt::print("{}", app.help());
    return kOk;
  } catch (const CLI::ParseError& e) {
    print_error(e.what());
    fmt::print(stderr, "run 'cgmem {} --help' for usage\n", app.get_name());
    return kUsage;
  }
  return -1;
}

void print_error(const Error& error) { print_error(error.message()); }

void print_error(const std::string& message) {
  fmt::print(stderr, "cgmem: error: {}\n", message);
}

CLI::Validator size_validator(SizeRules rules) {
  return CLI::Validator(
      [rules](std::string& text) -> std::string {
        auto parsed = parse_limit(text, rules);
        return parsed ? std::string() : parsed.error().message();
      },
      rules.allow_max ? "SIZE|max" : "SIZE");
}

Limit limit_from(const std::string& text, SizeRules rules) {
  auto parsed = parse_limit(text, rules);
  if (!parsed) throw CLI::ValidationError(parsed.error().message());
  return *parsed;
}

}  // namespace cgmem::cli
