// Helpers every subcommand uses: CLI11 parsing with cgmem's error style,
// size options, and printing errors.
#pragma once

#include <CLI/CLI.hpp>
#include <array>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "common/duration.h"
#include "common/error.h"
#include "common/size.h"

namespace cgmem::cli {

// Parses args into app. Returns -1 when the command should go on, else the
// exit code to return now (0 after --help, kUsage after a bad flag, with the
// message printed as "cgmem: error: ...").
int parse(CLI::App& app, std::span<char*> args);

// Prints "cgmem: error: MESSAGE" to stderr.
void print_error(const Error& error);
void print_error(const std::string& message);

// The sink (common/sink.h) commands give libraries: the line on stderr.
void print_line_to_stderr(const std::string& line);

// A CLI11 validator that accepts what parse_limit accepts with these rules.
CLI::Validator size_validator(SizeRules rules = {.allow_max = true});

// A CLI11 validator that accepts what parse_duration (common/duration.h)
// accepts, a bare number in `bare_unit`: every duration option checks
// through it, so each refusal reads "--NAME: invalid duration '...': why".
CLI::Validator duration_validator(TimeUnit bare_unit, uint64_t longest_ns = kDayNs);

// A CLI11 validator for an unsigned option: decimal digits only (no sign, no
// 0x, no exponent), within [min, max]. CLI11 itself would take "-1" as
// 2^64 - 1 and "010" as octal 8.
CLI::Validator whole_number(uint64_t min, uint64_t max);

// A CLI11 transform for an option stored in an enum: the text must be one of
// `names`, spelt as there ("" among them accepts an empty value); CLI11 then
// stores the matching value. The error lists the names, so the enum is
// parsed once, here, and never compared as a string further down.
template <class E, size_t N>
CLI::Validator one_of_names(const std::array<std::pair<std::string_view, E>, N>& names) {
  std::string help, listing;  // "None|TieredReservation", "None, TieredReservation"
  for (const auto& [name, value] : names) {
    if (name.empty()) continue;
    help.append(help.empty() ? "" : "|").append(name);
    listing.append(listing.empty() ? "" : ", ").append(name);
  }
  return CLI::Validator(
      [names, listing](std::string& text) -> std::string {
        for (const auto& [name, value] : names)
          if (text == name) {
            text = std::to_string(static_cast<std::underlying_type_t<E>>(value));
            return {};
          }
        std::string message = "'";
        message.append(text).append("' is not one of ").append(listing);
        return message;
      },
      help);
}

// Parses a size option's text after validation (cannot fail once validated).
Limit limit_from(const std::string& text, SizeRules rules = {.allow_max = true});

}  // namespace cgmem::cli
