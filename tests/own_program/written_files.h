// What a runtime's guest script brought back (tests/own_program/vm/): whole
// the FILE=VALUE lines of the cgroup files it read, and the check that they
// hold what `cgmem translate` says is written there.
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "support/vm_out.h"

namespace cgmem::testing {

// FILE=VALUE lines, as the guest read them into DIR/PATH.
inline std::map<std::string, std::string> written_files(const std::string& dir, const std::string& path) {
  std::map<std::string, std::string> out;
  std::istringstream in(slurp_out(dir, path));
  for (std::string line; std::getline(in, line);)
    if (auto eq = line.find('='); eq != std::string::npos) out[line.substr(0, eq)] = line.substr(eq + 1);
  return out;
}

// The files `cgmem translate ... --json` says are written, FILE -> value as
// the kernel shows it ("max" or bytes).
inline std::map<std::string, std::string> translated_files(const nlohmann::json& translation) {
  std::map<std::string, std::string> out;
  for (const auto& a : translation["assignments"])
    if (a["set"].get<bool>())
      out[a["file"].get<std::string>()] =
          a["value"].is_string() ? a["value"].get<std::string>() : std::to_string(a["value"].get<uint64_t>());
  return out;
}

// What the kernel holds in a new cgroup's file that nobody wrote.
inline std::string kernel_default(const std::string& file) {
  return file == "memory.low" || file == "memory.min" || file == "memory.oom.group" ? "0" : "max";
}

// Every file the guest read into DIR/PATH holds what `cgmem translate ...
// --json` (`translation`) says is written there, or the kernel's default
// where translate leaves it alone.
inline void expect_as_translated(const std::string& dir, const std::string& path, const std::string& translation) {
  auto written = written_files(dir, path);
  ASSERT_FALSE(written.empty()) << "no cgroup files read";
  auto expected = translated_files(nlohmann::json::parse(translation));
  for (const auto& [file, value] : written) {
    auto want = expected.contains(file) ? expected[file] : kernel_default(file);
    EXPECT_EQ(value, want) << file << (expected.contains(file) ? " (translate's)" : " (left alone: the kernel's default)");
  }
}

}  // namespace cgmem::testing
