// `cgmem kernel build --source DIR --plan` on Debian's 6.12 tree, and on a
// copy of it made to look like 6.16 (Makefile PATCHLEVEL 16, the slots patch
// applied, so mm/memcontrol.c has NR_MEMCG_STOCK): name, version, key,
// patches applied or skipped as upstream, the copy patched and configured in
// the build directory and removed, the source directory untouched. Nothing
// is compiled. Runs only where linux-source-6.12 is installed.
//
// The tarball is extracted once, and only what configure and the patches
// read (every Kconfig, Makefile and Kbuild file, scripts/, the tiny configs,
// the files the patches change): about 45 MB instead of 1.7 GB, so each copy is
// quick; configure itself (tinyconfig, the fragment, olddefconfig) takes
// about 40 s per plan on the 2-core build machine.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <nlohmann/json.hpp>

#include "kernel/inputs.h"
#include "kernel/source.h"
#include "support/run_cgmem.h"
#include "support/temp_dir.h"

namespace cgmem::kernel {
namespace {

using testing::TempDir;

struct Plan {
  std::string out, err;
  int code = -1;
  nlohmann::json json() const { return nlohmann::json::parse(out, nullptr, false); }
};

// `cgmem kernel build --plan ARGS` with the cache in `cache`; --json prints
// no progress, so the text form is the one whose stderr shows the steps.
Plan plan(const std::string& cache, const std::string& args) {
  std::string err = cache + "/plan.err";
  auto out = testing::run_shell("XDG_CACHE_HOME=" + cache + " " + CGMEM_BINARY + " kernel build --plan " + args +
                                " 2>" + err);
  std::ifstream in(err);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return {out.text, text, out.code};
}

// Nothing but the log of earlier failures may be left in the cache: no entry, no build directory.
std::vector<std::string> left_in(const std::string& kernels) {
  std::vector<std::string> left;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(kernels, ec)) left.push_back(e.path().filename());
  return left;
}

// "'*/mm/memcontrol.c' ..." for every file a patch of cgmem's changes (not one it creates), each
// once (tar says a pattern given twice is "Not found in archive").
std::string patched_files() {
  std::set<std::string> files;
  for (const auto& name : patch_names()) {
    std::string text = patch_text(name).value();
    for (size_t at = text.find("\n+++ b/"); at != std::string::npos; at = text.find("\n+++ b/", at + 1)) {
      size_t start = at + 7, end = text.find_first_of("\t\n", start);
      if (text.compare(end + 1, 8, "@@ -0,0 ") == 0) continue;  // a file the patch creates
      files.insert(text.substr(start, end - start));
    }
  }
  std::string out;
  for (const auto& file : files) out += " '*/" + file + "'";
  return out;
}

TEST(KernelSourcePlan, Debian612TreeIsCopiedPatchedAndConfiguredAnd616SkipsTheSlotsPatch) {
  if (!std::filesystem::exists(kSourceTarball)) GTEST_SKIP() << kSourceTarball << " is not installed";
  TempDir tmp;
  std::string tree = tmp.path() + "/linux-6.12";
  std::filesystem::create_directories(tree);
  auto extract = testing::run_shell(
      std::string("tar -xf ") + kSourceTarball + " -C " + tree +
      " --strip-components=1 --wildcards '*Kconfig*' '*Makefile*' '*Kbuild*' '*/scripts/*' '*/kernel/configs/*' "
      "'*/arch/x86/configs/*'" + patched_files() + " 2>&1");
  ASSERT_EQ(extract.code, 0) << extract.text;
  auto before = tree_digest(tree);
  ASSERT_TRUE(before.has_value());
  // Debian's linux-source-6.12 moves (6.12.117, then 6.12.118): the sublevel is the tree's.
  std::ifstream makefile(tree + "/Makefile");
  const std::string version =
      makefile_version(std::string((std::istreambuf_iterator<char>(makefile)), std::istreambuf_iterator<char>()));
  ASSERT_TRUE(version.starts_with("6.12.")) << version;
  const std::string sub = version.substr(5);

  // Debian's 6.12: both patches applied, in order, whatever the order given.
  Plan p = plan(tmp.path(),
                "--json --source " + tree + " --hz 1000 --patch memcg-stock-slots --patch memory-high-throttle");
  ASSERT_EQ(p.code, 0) << p.out << p.err;
  auto j = p.json();
  ASSERT_TRUE(j.is_object()) << p.out << p.err;
  EXPECT_EQ(j["name"], "6.12." + sub + "-hz1000-throttle-slots");
  EXPECT_EQ(j["version"], "6.12." + sub);
  EXPECT_EQ(j["source"], tree);
  EXPECT_EQ(j["source_version"], "dir 6.12." + sub + " " + *before);
  EXPECT_EQ(j["key"].get<std::string>().size(), 12u);
  EXPECT_EQ(j["patches"], nlohmann::json::array({"memory-high-throttle", "memcg-stock-slots"}));
  EXPECT_EQ(j["upstream"], nlohmann::json::array());
  EXPECT_EQ(j["config_hz"], 1000);
  EXPECT_EQ(j["cached"], false);
  EXPECT_EQ(tree_digest(tree).value(), *before);  // the source directory is never modified
  EXPECT_TRUE(left_in(tmp.path() + "/cgmem/kernels").empty());

  // The same tree made to look like 6.16, which has the multi-memcg stock upstream.
  std::string tree616 = tmp.path() + "/linux-6.16";
  ASSERT_EQ(testing::run_shell("cp -a " + tree + " " + tree616).code, 0);
  ASSERT_EQ(testing::run_shell("sed -i 's/^PATCHLEVEL = 12$/PATCHLEVEL = 16/' " + tree616 + "/Makefile").code, 0);
  std::ofstream(tmp.path() + "/slots.patch", std::ios::binary) << patch_text(kSlotsPatch).value();
  auto applied = testing::run_shell("cd " + tree616 + " && patch -p1 --batch -i " + tmp.path() + "/slots.patch 2>&1");
  ASSERT_EQ(applied.code, 0) << applied.text;
  Plan q = plan(tmp.path(), "--source " + tree616 + " --hz 250 --patch memory-high-throttle --patch memcg-stock-slots");
  ASSERT_EQ(q.code, 0) << q.out << q.err;
  EXPECT_NE(q.out.find("name     6.16." + sub + "-hz250-throttle-slots\nversion  6.16." + sub + "\nkey      "), std::string::npos)
      << q.out;
  EXPECT_NE(q.out.find("\nsource   " + tree616 + "\npatches  memory-high-throttle\nupstream memcg-stock-slots\n"),
            std::string::npos)
      << q.out;
  EXPECT_NE(q.out.find(" (not built)\nconfigured at HZ=250; nothing compiled, the build directory removed\n"),
            std::string::npos)
      << q.out;
  EXPECT_NE(q.err.find("cgmem kernel: copy\ncgmem kernel: patch\ncgmem kernel: patch: memory-high-throttle\n"
                       "cgmem kernel: patch: memcg-stock-slots skipped: 6.16." + sub + " has it upstream (mm/memcontrol.c "
                       "has NR_MEMCG_STOCK)\ncgmem kernel: configure\n"),
            std::string::npos)
      << q.err;
  EXPECT_EQ(q.out.find(j["key"].get<std::string>()), std::string::npos);  // another key
  EXPECT_TRUE(left_in(tmp.path() + "/cgmem/kernels").empty());
}

}  // namespace
}  // namespace cgmem::kernel
