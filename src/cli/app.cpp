#include "cli/app.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>

#include "common/exit_codes.h"

namespace cgmem::cli {

int parse(CLI::App& app, std::span<char*> args) {
  // CLI11 wants argv[0]; args holds what follows the subcommand name.
  std::vector<std::string> words(args.begin(), args.end());
  std::reverse(words.begin(), words.end());
  try {
    app.parse(words);
  } catch (const CLI::CallForHelp&) {
    // "Usage: cgmem NAME ...", the way it is typed (the app is named NAME
    // so that errors can say 'cgmem NAME --help').
    fmt::print("{}", app.help("cgmem"));
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

void print_line_to_stderr(const std::string& line) { fmt::print(stderr, "{}\n", line); }

CLI::Validator size_validator(SizeRules rules) {
  return CLI::Validator(
      [rules](std::string& text) -> std::string {
        auto parsed = parse_limit(text, rules);
        return parsed ? std::string() : parsed.error().message();
      },
      rules.allow_max ? "SIZE|max" : "SIZE");
}

CLI::Validator duration_validator(TimeUnit bare_unit, uint64_t longest_ns) {
  return CLI::Validator(
      [bare_unit, longest_ns](std::string& text) {
        auto parsed = parse_duration(text, bare_unit, longest_ns);
        return parsed ? std::string() : parsed.error().message();
      },
      "DURATION");
}

CLI::Validator whole_number(uint64_t min, uint64_t max) {
  return CLI::Validator(
      [min, max](std::string& text) -> std::string {
        uint64_t value = 0;
        const char* end = text.data() + text.size();
        bool digits = !text.empty() && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
        auto [p, ec] = std::from_chars(text.data(), end, value);
        if (!digits || ec == std::errc::invalid_argument || p != end)
          return fmt::format("'{}' is not a whole number", text);
        if (ec == std::errc::result_out_of_range || value < min || value > max)
          return fmt::format("{} is out of range ({} to {})", text, min, max);
        text = std::to_string(value);  // no leading zeros, which CLI11 reads as octal
        return {};
      },
      fmt::format("{}..{}", min, max));
}

Limit limit_from(const std::string& text, SizeRules rules) {
  auto parsed = parse_limit(text, rules);
  if (!parsed) throw CLI::ValidationError(parsed.error().message());
  return *parsed;
}

}  // namespace cgmem::cli
