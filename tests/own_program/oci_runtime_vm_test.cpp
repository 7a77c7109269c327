// Debian's runc and crun in the VM (tests/own_program/vm/oci_runtimes.sh):
// for each OCI resources case of vm/oci_cases.txt, the cgroup files the
// runtime wrote when it created the container, against `cgmem translate
// runc|crun` (with the runtime's version) on the same spec. A file translate
// leaves alone must hold the kernel's default; a spec translate refuses, the
// runtime must refuse too.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <unistd.h>

#include "support/run_cgmem.h"
#include "written_files.h"

namespace fs = std::filesystem;

namespace {

const std::string kOut = std::string(CGMEM_OWN_OUT) + "/oci";
const fs::path kCases = CGMEM_OCI_CASES;

std::string read(const std::string& path) { return cgmem::testing::slurp_out(kOut, path); }

struct Case {
  std::string name, resources;
};

std::vector<Case> cases() {
  std::vector<Case> out;
  std::istringstream in(cgmem::testing::slurp_out(kCases.parent_path(), kCases.filename()));
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    auto space = line.find(' ');
    out.push_back({line.substr(0, space), line.substr(space + 1)});
  }
  return out;
}

void check_runtime(const std::string& runtime) {
  ASSERT_TRUE(fs::exists(kOut + "/" + runtime + "/version")) << "no " << runtime << " output from the guest";
  std::string version = read(runtime + "/version");
  version = version.substr(0, version.find('\n'));
  int created = 0, refused = 0;
  char tmpl[] = "/tmp/cgmem-oci-spec-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  for (const auto& c : cases()) {
    SCOPED_TRACE(runtime + " " + c.name + " " + c.resources);
    fs::path spec = fs::path(tmpl) / (c.name + ".json");
    std::ofstream(spec) << R"({"linux": {"resources": )" << c.resources << "}}";
    std::string command = "translate " + runtime + " --spec " + spec.string() + " --json";
    if (runtime == "crun") command += " --version '" + version + "'";
    auto translated = cgmem::testing::run_cgmem_split(command);
    int status = std::stoi(read(runtime + "/" + c.name + ".status"));
    std::string err = read(runtime + "/" + c.name + ".err");
    if (translated.code != 0) {
      EXPECT_NE(status, 0) << "translate refused (" << translated.err << ") but " << runtime << " created it";
      ++refused;
      continue;
    }
    ASSERT_EQ(status, 0) << "translate accepted it but " << runtime << " refused: " << err;
    ++created;
    cgmem::testing::expect_as_translated(kOut, runtime + "/" + c.name + ".files", translated.out);
  }
  fs::remove_all(tmpl);
  std::printf("%s (%s): %d created as translate says, %d refused by both\n", runtime.c_str(), version.c_str(), created,
              refused);
  EXPECT_GT(created, 0);
}

TEST(OciRuntimeVm, RuncWritesWhatTranslateRuncSays) { check_runtime("runc"); }
TEST(OciRuntimeVm, CrunWritesWhatTranslateCrunSaysForItsVersion) { check_runtime("crun"); }

}  // namespace
