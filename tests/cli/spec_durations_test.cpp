// A matrix spec passes its durations to `cgmem run` unchanged, so the two
// must take the same ones: a spec that passes its check and then fails on
// every run of the batch is the failure this pins.
#include <gtest/gtest.h>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "cli/run_check.h"
#include "matrix/spec.h"

namespace cgmem::cli {
namespace {

bool run_takes(const std::string& flag, const std::string& value) {
  CLI::App app("cgmem run", "run");
  RunRequest request;
  add_run_flags(app, request);
  std::vector<std::string> words = {"--name", "n", flag, value};
  std::reverse(words.begin(), words.end());  // CLI11 parses a reversed vector
  try {
    app.parse(words);
    return true;
  } catch (const CLI::ParseError&) {
    return false;
  }
}

bool spec_takes(const std::string& key, const std::string& value) {
  auto text = fmt::format("[[configs]]\nname = \"c\"\n{} = \"{}\"\n[[workloads]]\nname = \"w\"\n", key, value);
  return matrix::parse_spec(text, "s.toml").has_value();
}

TEST(SpecDurations, EveryDurationASpecTakesIsOneCgmemRunTakes) {
  const char* texts[] = {"2h", "500us", "0", "0s", "1e3", "1.5s", "100", "20", "100ms", "3m", "1min",
                         "25h", "1d", "2d", "-1s", "5 s", "nan", "inf", "1.5", "90000", "86400", ""};
  for (const char* key : {"cap", "interval", "neighbour", "ready_delay"}) {
    std::string flag = matrix::run_flag(key);
    ASSERT_FALSE(flag.empty()) << key;
    for (const char* text : texts) {
      if (*text == '\0') continue;  // "" in a spec unsets the key: not a value
      EXPECT_EQ(spec_takes(key, text), run_takes(flag, text)) << key << " = \"" << text << "\"";
    }
  }
  // The two a spec and `cgmem run` once disagreed on, either way.
  EXPECT_TRUE(spec_takes("cap", "2h"));
  EXPECT_TRUE(spec_takes("cap", "500us"));
  EXPECT_FALSE(spec_takes("interval", "0"));
}

}  // namespace
}  // namespace cgmem::cli
