// Helpers every subcommand uses: CLI11 parsing with cgmem's error style,
// size options, and printing errors.
#pragma once

#include <CLI/CLI.hpp>
#include <span>
#include <string>

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

// A CLI11 validator for an unsigned option: decimal digits only (no sign, no
// 0x, no exponent), within [min, max]. CLI11 itself would take "-1" as
// 2^64 - 1 and "010" as octal 8.
CLI::Validator whole_number(uint64_t min, uint64_t max);

// Parses a size option's text after validation (cannot fail once validated).
Limit limit_from(const std::string& text, SizeRules rules = {.allow_max = true});

}  // namespace cgmem::cli
