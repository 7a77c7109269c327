// Debian's systemd in the VM (tests/own_program/vm/systemd_units.sh): for
// each case of vm/systemd_cases.txt, the cgroup files systemd wrote when it
// started the service (systemd-run -p, or a unit file with systemctl),
// against `cgmem translate systemd` with systemd's version and the guest's
// RAM. A file translate leaves alone must hold the kernel's default; what
// translate refuses, systemd must refuse too.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

#include "support/run_cgmem.h"
#include "written_files.h"

namespace fs = std::filesystem;

namespace {

const std::string kOut = std::string(CGMEM_OWN_OUT) + "/systemd";
const fs::path kCases = CGMEM_SYSTEMD_CASES;

std::string read(const std::string& path) { return cgmem::testing::slurp_out(kOut, path); }

struct Case {
  std::string name, how;  // how: "run" (systemd-run -p) or "unit" (a unit file)
  std::vector<std::string> properties;
};

std::vector<Case> cases() {
  std::vector<Case> out;
  std::istringstream in(cgmem::testing::slurp_out(kCases.parent_path(), kCases.filename()));
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream words(line);
    Case c;
    words >> c.name >> c.how;
    for (std::string p; words >> p;) c.properties.push_back(p);
    out.push_back(c);
  }
  return out;
}

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

TEST(SystemdVm, SystemdWritesWhatTranslateSystemdSaysForItsVersion) {
  ASSERT_TRUE(fs::exists(kOut + "/version")) << "no systemd output from the guest";
  std::string version = first_line(read("version"));
  std::string ram = first_line(read("ram"));
  ASSERT_FALSE(ram.empty());
  char tmpl[] = "/tmp/cgmem-systemd-unit-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  int started = 0, refused = 0;
  for (const auto& c : cases()) {
    SCOPED_TRACE(c.how + " " + c.name);
    std::string command = "translate systemd --version '" + version + "' --ram " + ram + " --json";
    if (c.how == "unit") {
      // The unit file the guest started, byte for byte.
      fs::path unit = fs::path(tmpl) / ("cgmem-" + c.name + ".service");
      std::ofstream(unit) << read(c.name + ".service");
      command += " " + unit.string();
    } else {
      for (const auto& p : c.properties) command += " -p '" + p + "'";
    }
    auto translated = cgmem::testing::run_cgmem_split(command);
    int status = std::stoi(read(c.name + ".status"));
    std::string err = read(c.name + ".err");
    if (translated.code != 0) {
      EXPECT_NE(status, 0) << "translate refused (" << translated.err << ") but systemd started it";
      ++refused;
      continue;
    }
    ASSERT_EQ(status, 0) << "translate accepted it but systemd refused: " << err;
    ++started;
    cgmem::testing::expect_as_translated(kOut, c.name + ".files", translated.out);
  }
  fs::remove_all(tmpl);
  std::printf("systemd (%s): %d started as translate says, %d refused by both\n", version.c_str(), started, refused);
  EXPECT_GT(started, 0);
  EXPECT_GT(refused, 0);
}

}  // namespace
