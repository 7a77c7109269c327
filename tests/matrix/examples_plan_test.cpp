// Every spec in examples/ planned as its docs say a user starts it, with
// `cgmem matrix --plan`: each run checked as `cgmem run` checks it on the
// machine the batch would run on (in the VM, the guest's RAM and CPUs),
// nothing run. A spec added to examples/ is checked here without a new test.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "support/run_cgmem.h"

namespace {

namespace fs = std::filesystem;

const fs::path kSource = CGMEM_SOURCE_DIR;

std::string slurp(const fs::path& path) {
  std::stringstream text;
  text << std::ifstream(path).rdbuf();
  return text.str();
}

std::vector<std::string> words_of(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

// Each `cgmem matrix examples/NAME.toml FLAGS` the docs and the specs' own
// comments give, by spec: FLAGS up to a backtick, `&&`, `#` or the line's end.
std::map<std::string, std::set<std::string>> documented_commands() {
  std::vector<fs::path> sources = {kSource / "README.md"};
  for (const auto& dir : {kSource / "docs", kSource / "examples"})
    for (const auto& entry : fs::recursive_directory_iterator(dir))  // docs/measurements too
      if (entry.is_regular_file()) sources.push_back(entry.path());
  static const std::regex command(R"(cgmem matrix examples/([A-Za-z0-9_.-]+\.toml)([^`&#\n]*))");
  std::map<std::string, std::set<std::string>> out;
  for (const auto& source : sources) {
    std::string text = slurp(source);
    for (std::sregex_iterator m(text.begin(), text.end(), command), end; m != end; ++m) {
      std::string flags;
      auto words = words_of((*m)[2]);
      for (size_t i = 0; i < words.size(); ++i) {
        if (words[i] == "--out") { ++i; continue; }  // the plan writes nothing; its own --out below
        flags += " " + words[i];
      }
      out[(*m)[1]].insert(flags);
    }
  }
  return out;
}

bool is_guard_policy(const fs::path& spec) {
  return slurp(spec).find("cgmem guard --policy examples/" + spec.filename().string()) != std::string::npos;
}

// `cgmem matrix --plan --json` of one spec; on failure, the refusals.
void expect_plans(const fs::path& spec, const std::string& flags) {
  SCOPED_TRACE("cgmem matrix examples/" + spec.filename().string() + flags);
  auto out = cgmem::testing::run_cgmem_split("matrix " + spec.string() + flags +
                                             " --plan --json --out /tmp/cgmem-examples-plan-unused");
  auto plan = nlohmann::json::parse(out.out, nullptr, false);
  ASSERT_FALSE(plan.is_discarded()) << out.out << out.err;
  for (const auto& run : plan["runs"])
    EXPECT_TRUE(run["refused"].is_null()) << run["name"] << ": " << run["refused"];
  EXPECT_EQ(plan["refused"], 0);
  EXPECT_GT(plan["runs"].size(), 0u);
  EXPECT_EQ(out.code, 0) << out.err;
  EXPECT_FALSE(fs::exists("/tmp/cgmem-examples-plan-unused"));
}

TEST(ExamplesPlan, EverySpecPlansAsItsDocsStartItWithoutARefusal) {
  auto commands = documented_commands();
  int planned = 0;
  for (const auto& entry : fs::directory_iterator(kSource / "examples")) {
    const fs::path& spec = entry.path();
    if (spec.extension() != ".toml" || is_guard_policy(spec)) continue;
    std::string name = spec.filename().string();
    ASSERT_TRUE(commands.contains(name))
        << "examples/" << name << ": no comment or doc says how to start it (`cgmem matrix examples/" << name
        << " ...`)";
    for (const auto& flags : commands[name]) {
      expect_plans(spec, flags);
      ++planned;
      // Without --vm or --native the batch runs here when this host has a
      // memory controller, else in the VM: plan the VM too.
      if (flags.find("--vm ") == std::string::npos && !flags.ends_with("--vm") &&
          flags.find("--native") == std::string::npos)
        expect_plans(spec, flags + " --vm");
    }
  }
  EXPECT_GE(planned, 6);  // claims, diag, quick, redis, rfc, study
}

// The RFC's spec as it was: --target 1G in a guest of --vm-mem 1G, whose
// kernel leaves it less than 1 GiB. `cgmem run` in the guest refused the
// batch's first run; the plan refuses every run with that check's message.
TEST(ExamplesPlan, TheOldRfcSpecIsRefusedByTheRamCheck) {
  std::string text = slurp(kSource / "examples/rfc.toml");
  std::string old = std::regex_replace(text, std::regex(R"(args = \[[^\]]*\])"), R"(args = ["--target", "1G"])");
  ASSERT_NE(old, text);
  fs::path dir = fs::temp_directory_path() / "cgmem-old-rfc";
  fs::create_directories(dir);
  std::ofstream(dir / "rfc.toml") << old;
  auto out = cgmem::testing::run_cgmem_split("matrix " + (dir / "rfc.toml").string() +
                                             " --vm-swap 64M --plan --out /tmp/cgmem-old-rfc-unused");
  EXPECT_EQ(out.code, 2) << out.out << out.err;
  EXPECT_NE(out.out.find("plan rfc: 20 runs in the VM on kernel hz1000-throttle-slots-trace (the spec names "
                         "kernel hz1000-throttle-slots-trace); the guest: 2 CPUs, 960MiB of RAM (--vm-mem 1G less what its kernel keeps)\n"),
            std::string::npos)
      << out.out;
  EXPECT_NE(out.out.find("refused alloc-forever-shift0-r1: workload options after '--': --target 1GiB is above "
                         "this machine's RAM (960MiB) (the workload would wait on the whole machine's OOM killer; "
                         "give a smaller --target)\n"),
            std::string::npos)
      << out.out;
  EXPECT_NE(out.out.find("plan rfc: 0 of 20 runs would run, 20 refused"), std::string::npos) << out.out;
  EXPECT_EQ(out.err, "cgmem: error: matrix --plan: `cgmem run` would refuse 20 of 20 runs of " +
                         (dir / "rfc.toml").string() + "\n");
  // A guest of 2G holds it.
  auto bigger = cgmem::testing::run_cgmem_split("matrix " + (dir / "rfc.toml").string() +
                                                " --vm-swap 64M --vm-mem 2G --plan --out /tmp/cgmem-old-rfc-unused");
  EXPECT_EQ(bigger.code, 0) << bigger.out << bigger.err;
  fs::remove_all(dir);
}

// The plan's checks are `cgmem run`'s: a cap `cgmem run` refuses is named
// with its flag, and CPUs are the guest's two.
TEST(ExamplesPlan, RunChecksNameTheFlagAndTheValue) {
  fs::path dir = fs::temp_directory_path() / "cgmem-plan-checks";
  fs::create_directories(dir);
  std::ofstream(dir / "s.toml") << "reps = 1\n[defaults]\ncpu = 3\n[[configs]]\nname = \"max\"\nmax = \"32M\"\n"
                                   "[[workloads]]\nname = \"w\"\nargs = [\"--target\", \"40M\"]\n"
                                   "[[workloads]]\nname = \"fast\"\ncpu = 0\ninterval = \"5ms\"\n"
                                   "args = [\"--target\", \"40M\"]\n"
                                   "[[workloads]]\nname = \"ok\"\ncpu = 1\nargs = [\"--target\", \"40M\"]\n";
  auto out = cgmem::testing::run_cgmem_split("matrix " + (dir / "s.toml").string() + " --vm --plan --out " +
                                             (dir / "b").string());
  EXPECT_EQ(out.code, 2) << out.out << out.err;
  EXPECT_NE(out.out.find("refused w-max-r1: --cpu 3: this machine has CPUs 0 to 1\n"), std::string::npos) << out.out;
  EXPECT_NE(out.out.find("refused fast-max-r1: --interval is below 10ms (the sampler would cost more than it shows)\n"),
            std::string::npos)
      << out.out;
  EXPECT_NE(out.out.find("run     ok-max-r1: cgmem run --name ok-max-r1 --out " + (dir / "b/ok-max-r1").string() +
                         " --cpu 1 --max 32M --quiet -- --target 40M\n"),
            std::string::npos)
      << out.out;
  EXPECT_FALSE(fs::exists(dir / "b"));
  fs::remove_all(dir);
}

// neighbours = N plans `--neighbours N`, and the plan refuses what cgmem run
// refuses: more than 64, or neighbours that together charge more often than
// once per millisecond.
TEST(ExamplesPlan, NeighboursArePlannedAndCheckedAsCgmemRunChecksThem) {
  fs::path dir = fs::temp_directory_path() / "cgmem-plan-neighbours";
  fs::create_directories(dir);
  std::ofstream(dir / "s.toml") << "reps = 1\n[[configs]]\nname = \"nb\"\nhigh = \"28M\"\n"
                                   "[[workloads]]\nname = \"eight\"\nneighbours = 8\nargs = [\"--target\", \"40M\"]\n"
                                   "[[workloads]]\nname = \"many\"\nneighbours = 65\nargs = [\"--target\", \"40M\"]\n"
                                   "[[workloads]]\nname = \"fast\"\nneighbours = 8\nneighbour = \"4ms\"\n"
                                   "args = [\"--target\", \"40M\"]\n";
  auto out = cgmem::testing::run_cgmem_split("matrix " + (dir / "s.toml").string() + " --vm --plan --out " +
                                             (dir / "b").string());
  EXPECT_EQ(out.code, 2) << out.out << out.err;
  EXPECT_NE(out.out.find("run     eight-nb-r1: cgmem run --name eight-nb-r1 --out " + (dir / "b/eight-nb-r1").string() +
                         " --high 28M --neighbours 8 --quiet -- --target 40M\n"),
            std::string::npos)
      << out.out;
  EXPECT_NE(out.out.find("refused many-nb-r1: --neighbours: 65 is out of range (1 to 64)\n"), std::string::npos)
      << out.out;
  EXPECT_NE(out.out.find("refused fast-nb-r1: --neighbours 8 at --neighbour 4ms charge the workload's CPU every 0.5ms, "
                         "more often than once per 1ms (together they would take the CPU from the workload; give "
                         "--neighbour 8ms or more, or fewer --neighbours)\n"),
            std::string::npos)
      << out.out;
  EXPECT_FALSE(fs::exists(dir / "b"));
  fs::remove_all(dir);
}

// trace = true plans `--trace` (a flag without a value), false unsets it
// (a workload over the defaults), and anything else is refused; --trace
// traces every run.
TEST(ExamplesPlan, TraceIsAFlagTrueOrFalse) {
  fs::path dir = fs::temp_directory_path() / "cgmem-plan-trace";
  fs::create_directories(dir);
  std::ofstream(dir / "s.toml") << "reps = 1\n[defaults]\ntrace = true\n[[configs]]\nname = \"c\"\nhigh = \"28M\"\n"
                                   "[[workloads]]\nname = \"on\"\nargs = [\"--target\", \"40M\"]\n"
                                   "[[workloads]]\nname = \"off\"\ntrace = false\nargs = [\"--target\", \"40M\"]\n";
  auto plan = [&](const std::string& more) {
    return cgmem::testing::run_cgmem_split("matrix " + (dir / "s.toml").string() + " --vm --plan --out " +
                                           (dir / "b").string() + more);
  };
  auto out = plan("");
  EXPECT_NE(out.out.find("--name on-c-r1 --out " + (dir / "b/on-c-r1").string() + " --high 28M --trace --quiet --"),
            std::string::npos)
      << out.out << out.err;
  EXPECT_NE(out.out.find("--name off-c-r1 --out " + (dir / "b/off-c-r1").string() + " --high 28M --quiet --"),
            std::string::npos)
      << out.out;
  out = plan(" --trace");
  EXPECT_NE(out.out.find("--name off-c-r1 --out " + (dir / "b/off-c-r1").string() + " --high 28M --trace --quiet --"),
            std::string::npos)
      << out.out;
  std::ofstream(dir / "s.toml") << "[[configs]]\nname = \"c\"\ntrace = \"yes\"\n[[workloads]]\nname = \"w\"\n";
  out = plan("");
  EXPECT_EQ(out.code, 2);
  EXPECT_NE(out.err.find("config c.trace must be true or false"), std::string::npos) << out.err;
  EXPECT_FALSE(fs::exists(dir / "b"));
  fs::remove_all(dir);
}

}  // namespace
