// The reports of the fixture batches (tests/fixtures/runs/basic, claims,
// rfc), whole, against the files in tests/fixtures/reports/NAME: runs
// recorded before cgmem knew swap report exactly as they did (claims.md,
// summary.md, predict.md, report.json). The golden files were written by
// the report before swap came in (tests/report/README.md says how); a
// change to the report that is meant rewrites them with
// CGMEM_WRITE_GOLDEN=1 and shows in review as their diff.
//
// What depends on the machine is taken out on both sides: the fixtures'
// path (report.json's dirs), lines about gnuplot (a machine without it
// says so) and the plots (summary.md from "## Plots" on, report.json's
// "plots").
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "report/report.h"
#include "support/fixture.h"
#include "support/temp_dir.h"

namespace cgmem::report {
namespace {

namespace fs = std::filesystem;

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

std::string without_gnuplot_lines(const std::string& text) {
  std::string out;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    size_t next = end == std::string::npos ? text.size() : end + 1;
    std::string_view line(text.data() + start, next - start);
    if (line.find("gnuplot") == std::string_view::npos) out.append(line);
    start = next;
  }
  return out;
}

std::string normalized(const std::string& name, std::string text) {
  text = replace_all(std::move(text), std::string(CGMEM_FIXTURES), "$FIXTURES");
  if (name == "summary.md") text = text.substr(0, text.find("## Plots\n"));
  if (name == "report.json") {
    auto j = nlohmann::json::parse(text);
    j.erase("plots");
    auto& notes = j["notes"];
    for (auto it = notes.begin(); it != notes.end();)
      it = it->get<std::string>().find("gnuplot") != std::string::npos ? notes.erase(it) : it + 1;
    return j.dump(2) + "\n";
  }
  return without_gnuplot_lines(text);
}

class GoldenReport : public ::testing::TestWithParam<const char*> {};

TEST_P(GoldenReport, ReportsAsBeforeSwap) {
  cgmem::testing::TempDir temp;
  const std::string fixture = GetParam();
  auto w = make_report({.dirs = {cgmem::testing::fixture_path("runs/" + fixture)},
                        .out = (temp.dir() / "report").string(), .html = false});
  ASSERT_TRUE(w.has_value()) << w.error().message();
  const bool write = std::getenv("CGMEM_WRITE_GOLDEN") != nullptr;
  for (const char* name : {"claims.md", "summary.md", "predict.md", "report.json"}) {
    std::string got = normalized(name, cgmem::testing::slurp((temp.dir() / "report" / name).string()));
    std::string golden = "reports/" + fixture + "/" + name;
    if (write) {
      fs::create_directories(fs::path(cgmem::testing::fixture_path(golden)).parent_path());
      cgmem::testing::spit(cgmem::testing::fixture_path(golden), got);
      continue;
    }
    EXPECT_EQ(got, cgmem::testing::fixture(golden)) << golden;
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, GoldenReport, ::testing::Values("basic", "claims", "rfc"));

}  // namespace
}  // namespace cgmem::report
