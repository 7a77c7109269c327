// src/kernel without building a kernel: names, keys, the fragment check,
// the cache's listing and lookup, sources (Makefile versions, directory
// digests, patches found upstream), failed builds (a bad tarball), and what
// `cgmem vm --stock-slots` allows.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sys/stat.h>

#include "kernel/build.h"
#include "kernel/cache.h"
#include "kernel/inputs.h"
#include "kernel/source.h"
#include "common/sha256.h"
#include "vm/qemu.h"
#include "vm/session.h"
#include "support/run_cgmem.h"
#include "support/temp_dir.h"

namespace cgmem::kernel {
namespace {

using testing::TempDir;

const std::string kThrottle(kThrottlePatch), kSlots(kSlotsPatch), kTrace(kTracePatch);

TEST(KernelName, RoundTripsThroughInputs) {
  std::vector<std::vector<std::string>> sets = {{}, {kThrottle}, {kSlots}, {kThrottle, kSlots},
                                                {kThrottle, kSlots, kTrace}};
  for (int hz : kHzChoices) {
    for (const auto& patches : sets) {
      for (std::string version : {"", "6.16.3", "6.12.117"}) {
        BuildInputs in{.hz = hz, .patches = patches, .version = version};
        auto back = inputs_from_name(kernel_name(in));
        ASSERT_TRUE(back.has_value()) << kernel_name(in);
        EXPECT_EQ(back->hz, hz);
        EXPECT_EQ(back->patches, in.patches);
        EXPECT_EQ(back->version, version);
      }
    }
  }
  EXPECT_EQ(kernel_name({.hz = 1000, .patches = {kThrottle}}), "hz1000-throttle");
  EXPECT_EQ(kernel_name({.hz = 1000, .patches = {kSlots}}), "hz1000-slots");
  EXPECT_EQ(kernel_name({.hz = 1000, .patches = {kThrottle, kSlots}}), "hz1000-throttle-slots");
  EXPECT_EQ(kernel_name({.hz = 1000, .patches = {kThrottle, kSlots, kTrace}}), "hz1000-throttle-slots-trace");
  EXPECT_EQ(build_command("hz1000-throttle-slots-trace"),
            "cgmem kernel build --hz 1000 --patch memory-high-throttle --patch memcg-stock-slots --patch memcg-trace");
  EXPECT_EQ(kernel_name({.hz = 1000, .version = "6.16.3"}), "6.16.3-hz1000");
  EXPECT_EQ(build_command("hz250-throttle"), "cgmem kernel build --hz 250 --patch memory-high-throttle");
  EXPECT_EQ(build_command("hz1000-throttle-slots"),
            "cgmem kernel build --hz 1000 --patch memory-high-throttle --patch memcg-stock-slots");
  EXPECT_EQ(build_command("hz100-slots"), "cgmem kernel build --hz 100 --patch memcg-stock-slots");
  EXPECT_EQ(build_command("6.16.3-hz1000"), "cgmem kernel build --source DIR --hz 1000");
}

TEST(KernelName, RejectsNamesItDoesNotMake) {
  for (const char* name : {"hz", "hz999", "hz1000x", "hz1000-throttled", "1000", "debian", "hz-throttle",
                           "hz1000-slots-throttle", "hz1000-throttle-throttle", "hz1000-slots-slots", "6.16-hz1000",
                           "6.16.3hz1000", "6..3-hz1000", "x.16.3-hz1000", "6.16.3-", "6.16.3-6.16.3-hz1000"})
    EXPECT_FALSE(inputs_from_name(name).has_value()) << name;
  EXPECT_EQ(build_command("foo"), "");
}

TEST(KernelPatches, AreAppliedInOneOrderWhateverTheOrderGiven) {
  EXPECT_EQ(ordered_patches({kSlots, kThrottle}).value(), (std::vector<std::string>{kThrottle, kSlots}));
  EXPECT_EQ(ordered_patches({kSlots, kSlots}).value(), (std::vector<std::string>{kSlots}));
  EXPECT_EQ(ordered_patches({}).value(), std::vector<std::string>{});
  auto bad = ordered_patches({kThrottle, "nope"});
  ASSERT_FALSE(bad.has_value());
  EXPECT_EQ(bad.error().message(),
            "no kernel patch named 'nope' (known patches: memory-high-throttle, memcg-stock-slots, memcg-trace)");
  EXPECT_EQ(patch_names(), (std::vector<std::string>{kThrottle, kSlots, kTrace}));
  EXPECT_EQ(ordered_patches({kTrace, kSlots, kThrottle}).value(), (std::vector<std::string>{kThrottle, kSlots, kTrace}));
  // Its events hook into both others' code.
  for (const auto& without : std::vector<std::vector<std::string>>{{kTrace}, {kTrace, kSlots}, {kTrace, kThrottle}}) {
    auto alone = ordered_patches(without);
    ASSERT_FALSE(alone.has_value());
    EXPECT_EQ(alone.error().message(),
              "--patch memcg-trace needs --patch memory-high-throttle and --patch memcg-stock-slots (its events hook "
              "into the throttle's shift and the stock slots' drains)");
  }
}

TEST(KernelFragment, SetsHzAndNamesTheReleaseAfterTheLabConfig) {
  std::string f = fragment({.hz = 300, .patches = {kThrottle}});
  EXPECT_TRUE(f.starts_with(lab_config()));
  EXPECT_NE(f.find("\nCONFIG_HZ_300=y\n"), std::string::npos);
  EXPECT_NE(f.find("\nCONFIG_LOCALVERSION=\"-cgmem-hz300-throttle\"\n"), std::string::npos);
  // The lab's needs, as the issue and docs/vm.md list them.
  for (const char* option : {"CONFIG_MEMCG=y", "CONFIG_PSI=y", "CONFIG_ZRAM=y", "CONFIG_VIRTIO_BLK=y",
                             "CONFIG_VIRTIO_PCI=y", "CONFIG_EXT4_FS=y", "CONFIG_SERIAL_8250_CONSOLE=y",
                             "CONFIG_BLK_DEV_THROTTLING=y", "CONFIG_CPUSETS=y", "CONFIG_TRANSPARENT_HUGEPAGE=y"})
    EXPECT_NE(f.find(std::string("\n") + option + "\n"), std::string::npos) << option;
}

TEST(KernelPatch, IsTheRfcPortWithItsHeader) {
  auto text = patch_text(kThrottlePatch);
  ASSERT_TRUE(text.has_value());
  EXPECT_NE(text->find("Where it came from"), std::string::npos);
  EXPECT_NE(text->find("What changed in the port"), std::string::npos);
  EXPECT_NE(text->find("+++ b/mm/memcontrol.c"), std::string::npos);
  EXPECT_NE(text->find(".name = \"high.throttle\""), std::string::npos);
  auto unknown = patch_text("nope");
  ASSERT_FALSE(unknown.has_value());
  EXPECT_EQ(unknown.error().message(),
            "no kernel patch named 'nope' (known patches: memory-high-throttle, memcg-stock-slots, memcg-trace)");
  auto slots = patch_text(kSlotsPatch);
  ASSERT_TRUE(slots.has_value());
  EXPECT_EQ(*slots, std::string(slots_patch()));
  EXPECT_NE(slots->find("+++ b/mm/memcontrol.c"), std::string::npos);
  EXPECT_NE(slots->find("NR_MEMCG_STOCK"), std::string::npos);  // what a tree that has it upstream shows
}

TEST(KernelKey, ChangesWithEachInput) {
  Source a{.tarball = "/x", .version = "6.12.117-1~deb12u1"};
  Source b{.tarball = "/x", .version = "6.12.118-1~deb12u1"};
  BuildInputs plain{.hz = 1000}, patched{.hz = 1000, .patches = {kThrottle}}, slow{.hz = 250};
  BuildInputs both{.hz = 1000, .patches = {kThrottle, kSlots}}, slots{.hz = 1000, .patches = {kSlots}};
  std::string key = cache_key(a, plain);
  EXPECT_EQ(key.size(), 12u);
  EXPECT_EQ(key, cache_key(a, plain));
  EXPECT_EQ(key, cache_key(Source{.tarball = "/elsewhere", .version = a.version}, plain));
  EXPECT_NE(key, cache_key(b, plain));
  EXPECT_NE(key, cache_key(a, patched));
  EXPECT_NE(key, cache_key(a, slow));
  EXPECT_NE(cache_key(a, both), cache_key(a, patched));
  EXPECT_NE(cache_key(a, both), cache_key(a, slots));
  EXPECT_NE(cache_key(a, slots), cache_key(a, patched));
  EXPECT_NE(cache_key(a, plain), cache_key(a, {.hz = 1000, .version = "6.12.117"}));
}

// Kernels built before there could be several patches keep their key:
// SHA-256 over version, fragment and the one patch (or ""), each ended by a NUL.
TEST(KernelKey, OfNoneOrOnePatchIsTheOneEarlierBuildsHave) {
  Source a{.tarball = "/x", .version = "6.12.117-1~deb12u1"};
  auto old_key = [&](const BuildInputs& in, const std::string& patch) {
    std::string text = a.version + '\0' + fragment(in) + '\0' + patch + '\0';
    return sha256_hex(text).substr(0, 12);
  };
  BuildInputs plain{.hz = 1000}, patched{.hz = 1000, .patches = {kThrottle}};
  EXPECT_EQ(cache_key(a, plain), old_key(plain, ""));
  EXPECT_EQ(cache_key(a, patched), old_key(patched, std::string(throttle_patch())));
}

TEST(KernelConfig, MissingOptionsNamesWhatKconfigDropped) {
  std::string config = "CONFIG_A=y\nCONFIG_S=\"x\"\n# CONFIG_N is not set\nCONFIG_M=y\n";
  std::string wanted = "# comment\nCONFIG_A=y\nCONFIG_S=\"x\"\nCONFIG_B=y\n# CONFIG_N is not set\n"
                       "# CONFIG_GONE is not set\n# CONFIG_M is not set\n";
  EXPECT_EQ(missing_options(wanted, config), (std::vector<std::string>{"CONFIG_B=y", "# CONFIG_M is not set"}));
  EXPECT_TRUE(missing_options("CONFIG_A=y\n", config).empty());
}

TEST(KernelConfig, HzAndCompiledCount) {
  EXPECT_EQ(config_hz("# x\nCONFIG_HZ_1000=y\nCONFIG_HZ=1000\n"), 1000);
  EXPECT_EQ(config_hz("CONFIG_HZ_250=y\n"), 0);
  EXPECT_EQ(count_compiled("  CC      mm/memcontrol.o\n  AR      mm/built-in.a\n  CC      init/main.o\n"), 2u);
}

TEST(KernelEntry, PatchIsTheOneNameAndPatchesTheList) {
  Entry one{.name = "hz1000-throttle", .key = "k", .hz = 1000, .patches = {kThrottle}};
  auto j = nlohmann::json::parse(entry_json(one));
  EXPECT_EQ(j["patch"], "memory-high-throttle");
  EXPECT_EQ(j["patches"], nlohmann::json::array({"memory-high-throttle"}));
  Entry none{.name = "hz1000", .key = "k", .hz = 1000};
  EXPECT_EQ(nlohmann::json::parse(entry_json(none))["patch"], "");
  Entry two{.name = "6.16.3-hz1000-throttle-slots", .key = "k", .hz = 1000, .patches = {kThrottle},
            .upstream = {kSlots}, .version = "6.16.3", .source = "/src/linux"};
  j = nlohmann::json::parse(entry_json(two));
  EXPECT_EQ(j["patch"], "memory-high-throttle");
  EXPECT_EQ(j["upstream"], nlohmann::json::array({"memcg-stock-slots"}));
  EXPECT_EQ(j["version"], "6.16.3");
  EXPECT_EQ(j["source"], "/src/linux");
  two.patches = {kThrottle, kSlots};
  EXPECT_EQ(nlohmann::json::parse(entry_json(two))["patch"], "memory-high-throttle,memcg-stock-slots");
}

TEST(KernelEntry, AnEarlierBuildJsonWithOnlyPatchReadsAsItsList) {
  TempDir tmp;
  std::ofstream(tmp.path() + "/" + kEntryFile) << R"({"name": "hz1000-throttle", "key": "k", "hz": 1000, "patch": "memory-high-throttle"})";
  std::ofstream(tmp.path() + "/bzImage") << "x";
  auto e = read_entry(tmp.path());
  ASSERT_TRUE(e.has_value()) << e.error().message();
  EXPECT_EQ(e->patches, (std::vector<std::string>{kThrottle}));
  EXPECT_TRUE(e->upstream.empty());
  std::ofstream(tmp.path() + "/" + kEntryFile) << R"({"name": "hz1000", "key": "k", "patches": "memcg-stock-slots"})";
  auto bad = read_entry(tmp.path());
  ASSERT_FALSE(bad.has_value());
  EXPECT_EQ(bad.error().what, "build.json: patches is \"memcg-stock-slots\", not a list of patch names");
}

TEST(KernelSource, VersionFromTheMakefile) {
  EXPECT_EQ(makefile_version("# SPDX\nVERSION = 6\nPATCHLEVEL = 16\nSUBLEVEL = 3\nEXTRAVERSION =\nNAME = Baby Opossum\n"),
            "6.16.3");
  EXPECT_EQ(makefile_version("VERSION=6\nPATCHLEVEL=12\nSUBLEVEL=0\n"), "6.12.0");
  EXPECT_EQ(makefile_version("VERSION = 6\nPATCHLEVEL = 12\n"), "");
  EXPECT_EQ(makefile_version("VERSION = six\nPATCHLEVEL = 12\nSUBLEVEL = 1\n"), "");
  EXPECT_EQ(makefile_version(""), "");
  EXPECT_TRUE(version_at_least("6.16.3", 6, 16));
  EXPECT_TRUE(version_at_least("7.0.0", 6, 16));
  EXPECT_FALSE(version_at_least("6.12.117", 6, 16));
  EXPECT_FALSE(version_at_least("", 6, 16));
}

TEST(KernelSource, PatchesFoundUpstreamInMemcontrol) {
  std::vector<std::string> both = {kThrottle, kSlots};
  EXPECT_TRUE(upstream_patches("static void drain_stock(...)\n", both).empty());
  auto slots = upstream_patches("#define NR_MEMCG_STOCK 7\n", both);
  ASSERT_EQ(slots.size(), 1u);
  EXPECT_EQ(slots[0].patch, kSlots);
  EXPECT_EQ(slots[0].reason, "mm/memcontrol.c has NR_MEMCG_STOCK");
  auto throttle = upstream_patches("\t\t.name = \"high.throttle\",\n", both);
  ASSERT_EQ(throttle.size(), 1u);
  EXPECT_EQ(throttle[0].reason, "mm/memcontrol.c has high.throttle");
  EXPECT_TRUE(upstream_patches("NR_MEMCG_STOCK", {kThrottle}).empty());  // only what was asked for
}

void write_text(const std::string& path, const std::string& text) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

TEST(KernelSource, ADirectoryIsKeyedByItsVersionAndFileList) {
  TempDir tmp;
  std::string tree = tmp.path() + "/linux";
  write_text(tree + "/Makefile", "VERSION = 6\nPATCHLEVEL = 16\nSUBLEVEL = 3\n");
  write_text(tree + "/mm/memcontrol.c", "int x;\n");
  write_text(tree + "/.git/HEAD", "ref: refs/heads/master\n");
  auto a = option_source(tree + "/");
  ASSERT_TRUE(a.has_value()) << a.error().message();
  EXPECT_EQ(a->dir, tree);
  EXPECT_EQ(a->tarball, "");
  EXPECT_EQ(a->kernel_version, "6.16.3");
  EXPECT_TRUE(a->from_option);
  auto digest = tree_digest(tree);
  ASSERT_TRUE(digest.has_value());
  EXPECT_EQ(digest->size(), 64u);
  EXPECT_EQ(a->version, "dir 6.16.3 " + *digest);
  EXPECT_EQ(directory_source(tree)->version, a->version);
  write_text(tree + "/.git/HEAD", "ref: refs/heads/other\n");  // .git is left out
  EXPECT_EQ(directory_source(tree)->version, a->version);
  write_text(tree + "/mm/memcontrol.c", "int xy;\n");  // a size changed
  auto b = directory_source(tree);
  EXPECT_NE(b->version, a->version);
  write_text(tree + "/mm/new.c", "");  // a file added
  EXPECT_NE(directory_source(tree)->version, b->version);
  std::filesystem::remove(tree + "/mm/new.c");
  EXPECT_EQ(directory_source(tree)->version, b->version);

  std::filesystem::create_directories(tmp.path() + "/empty");
  auto none = option_source(tmp.path() + "/empty");
  ASSERT_FALSE(none.has_value());
  EXPECT_EQ(none.error().message(),
            "read the top Makefile of the kernel source directory: " + tmp.path() +
                "/empty/Makefile (give a directory holding a kernel tree (a Makefile at its top), or a tarball)");
}

TEST(KernelSource, ATarballIsVersionedFromItsTopMakefile) {
  TempDir tmp;
  write_text(tmp.path() + "/t/linux-6.16.3/Makefile", "VERSION = 6\nPATCHLEVEL = 16\nSUBLEVEL = 3\n");
  write_text(tmp.path() + "/t/linux-6.16.3/mm/Makefile", "VERSION = 1\nPATCHLEVEL = 2\nSUBLEVEL = 3\n");
  std::string tarball = tmp.path() + "/linux.tar.xz";
  ASSERT_EQ(testing::run_shell("tar -cJf " + tarball + " -C " + tmp.path() + "/t linux-6.16.3").code, 0);
  auto s = option_source(tarball);
  ASSERT_TRUE(s.has_value()) << s.error().message();
  EXPECT_EQ(s->tarball, tarball);
  EXPECT_EQ(s->kernel_version, "6.16.3");
  EXPECT_TRUE(s->version.starts_with("file ")) << s->version;
}

Entry write_entry(const std::string& kernels, const std::string& name, const std::string& key,
                  const std::string& built_at) {
  Entry e{.dir = kernels + "/" + name + "-" + key, .name = name, .key = key, .hz = 1000, .built_at = built_at};
  std::filesystem::create_directories(e.dir);
  std::ofstream(e.dir + "/" + kEntryFile) << entry_json(e);
  std::ofstream(e.image()) << "not booted here";
  return e;
}

TEST(KernelCache, ListsWholeEntriesNewestFirstAndResolvesByKey) {
  TempDir tmp;
  std::string k = tmp.path();
  write_entry(k, "hz1000", "aaaaaaaaaaaa", "2026-11-01T00:00:00Z");
  write_entry(k, "hz1000", "bbbbbbbbbbbb", "2026-11-02T00:00:00Z");
  write_entry(k, "hz250-throttle", "cccccccccccc", "2026-11-03T00:00:00Z");
  std::filesystem::create_directories(k + "/6.12.117+deb12-cloud-amd64/boot");  // a Debian package, not an entry
  std::filesystem::create_directories(k + "/hz300-dddddddddddd");                // half-written: no build.json
  auto list = list_entries(k);
  ASSERT_EQ(list.size(), 3u);
  EXPECT_EQ(list[0].key, "bbbbbbbbbbbb");
  EXPECT_EQ(list[1].key, "aaaaaaaaaaaa");
  EXPECT_EQ(list[2].name, "hz250-throttle");
  EXPECT_EQ(resolve_entry(k, "hz1000", std::string("aaaaaaaaaaaa"))->key, "aaaaaaaaaaaa");
  EXPECT_EQ(resolve_entry(k, "hz1000", std::string("ffffffffffff"))->key, "bbbbbbbbbbbb");
  EXPECT_EQ(resolve_entry(k, "hz1000", std::nullopt)->key, "bbbbbbbbbbbb");
  auto missing = resolve_entry(k, "hz300", std::nullopt);
  ASSERT_FALSE(missing.has_value());
  EXPECT_EQ(missing.error().message(),
            "no kernel named hz300 in the cache " + k + " (build it first: cgmem kernel build --hz 300)");
}

// A build.json of another's making: each damaged entry is named with its
// reason, the others are listed, and none is a kernel.
TEST(KernelCache, ABadEntryIsMarkedWithItsReasonAndTheOthersListed) {
  TempDir tmp;
  std::string k = tmp.path();
  write_entry(k, "hz1000", "aaaaaaaaaaaa", "2026-11-01T00:00:00Z");
  auto damage = [&](const std::string& key, const std::string& json) {
    Entry e = write_entry(k, "hz250", key, "2026-11-02T00:00:00Z");
    std::ofstream(e.dir + "/" + kEntryFile) << json;
    return e;
  };
  damage("bbbbbbbbbbbb", R"({"name": "hz250", "key": "bbbbbbbbbbbb", "hz": "x"})");
  damage("cccccccccccc", R"({"name": "hz250", "key": "cccccccccccc", "hz": 1180591620717411303424})");
  damage("dddddddddddd", R"({"name": "hz250", "key": "dddddddddddd", "jobs": -1})");
  damage("eeeeeeeeeeee", "{not json");
  Entry dir_image = write_entry(k, "hz300", "ffffffffffff", "2026-11-03T00:00:00Z");
  std::filesystem::remove(dir_image.image());
  std::filesystem::create_directory(dir_image.image());  // a directory named bzImage is no kernel
  auto listing = list_cache(k);
  ASSERT_EQ(listing.entries.size(), 1u);
  EXPECT_EQ(listing.entries[0].key, "aaaaaaaaaaaa");
  ASSERT_EQ(listing.bad.size(), 5u);
  EXPECT_EQ(listing.bad[0].dir, k + "/hz250-bbbbbbbbbbbb");
  EXPECT_EQ(listing.bad[0].reason, "build.json: hz is \"x\", not a CONFIG_HZ (10 to 10000)");
  EXPECT_EQ(listing.bad[1].reason, "build.json: hz is 1.1805916207174113e+21, not a CONFIG_HZ (10 to 10000)");
  EXPECT_EQ(listing.bad[2].reason, "build.json: jobs is -1, not a number of jobs (0 to 4096)");
  EXPECT_EQ(listing.bad[3].reason, "build.json: it is not a JSON object");
  EXPECT_EQ(listing.bad[4].reason, "bzImage is not a regular file");
  EXPECT_FALSE(resolve_entry(k, "hz300", std::nullopt).has_value());
}

TEST(KernelListCli, AFifoBuildJsonHangsNothingAndIsMarked) {
  TempDir tmp;
  std::string k = tmp.path() + "/cgmem/kernels";
  write_entry(k, "hz1000", "aaaaaaaaaaaa", "2026-11-01T00:00:00Z");
  Entry fifo = write_entry(k, "hz250", "bbbbbbbbbbbb", "2026-11-02T00:00:00Z");
  std::filesystem::remove(fifo.dir + "/" + kEntryFile);
  ASSERT_EQ(::mkfifo((fifo.dir + "/" + kEntryFile).c_str(), 0644), 0);
  auto out = testing::run_shell("XDG_CACHE_HOME=" + tmp.path() + " timeout 20 " + CGMEM_BINARY + " kernel list 2>&1");
  ASSERT_EQ(out.code, 0) << out.text;
  EXPECT_NE(out.text.find("hz1000             aaaaaaaaaaaa"), std::string::npos) << out.text;
  EXPECT_NE(out.text.find("not a kernel: " + fifo.dir + ": build.json is a FIFO\n"), std::string::npos) << out.text;
  auto json = testing::run_shell("XDG_CACHE_HOME=" + tmp.path() + " timeout 20 " + CGMEM_BINARY + " kernel list --json");
  auto j = nlohmann::json::parse(json.text, nullptr, false);
  ASSERT_TRUE(j.is_object()) << json.text;
  EXPECT_EQ(j["kernels"].size(), 1u);
  EXPECT_EQ(j["bad"][0]["reason"], "build.json is a FIFO");
}

TEST(KernelBuildCli, ATarballWithoutATreeIsRefusedBeforeTheBuild) {
  TempDir tmp;
  std::string tarball = tmp.path() + "/empty.tar.xz";
  testing::run_shell("mkdir " + tmp.path() + "/e && tar -cJf " + tarball + " -C " + tmp.path() + "/e .");
  auto out = testing::run_cgmem("kernel build --hz 250 --source " + tarball, "XDG_CACHE_HOME=" + tmp.path() + " ");
  EXPECT_EQ(out.code, 3) << out.text;
  EXPECT_NE(out.text.find("cgmem: error: read the top Makefile of the kernel source tarball: " + tarball +
                          " (it holds no kernel source tree (no Makefile at its top))"),
            std::string::npos)
      << out.text;
  EXPECT_FALSE(std::filesystem::exists(tmp.path() + "/cgmem/kernels/hz250-"));
}

// A tree whose top Makefile has a version but nothing to configure: the
// copy works, configure fails and names its step; the directory is untouched.
TEST(KernelBuildCli, AFailedStepIsNamedAndItsLogKept) {
  TempDir tmp;
  std::string tree = tmp.path() + "/tree";
  write_text(tree + "/Makefile", "VERSION = 6\nPATCHLEVEL = 16\nSUBLEVEL = 3\n");
  auto before = tree_digest(tree);
  auto out = testing::run_cgmem("kernel build --hz 250 --source " + tree, "XDG_CACHE_HOME=" + tmp.path() + " ");
  EXPECT_EQ(out.code, 1) << out.text;
  EXPECT_NE(out.text.find("cgmem kernel: copy\ncgmem kernel: configure\n"), std::string::npos) << out.text;
  EXPECT_NE(out.text.find("cgmem: error: kernel build 6.16.3-hz250 failed at step 'configure': 'make tinyconfig' "
                          "exited with 2: "),
            std::string::npos)
      << out.text;
  EXPECT_NE(out.text.find("(the build log is kept: " + tmp.path() + "/cgmem/kernels/6.16.3-hz250-"),
            std::string::npos)
      << out.text;
  EXPECT_EQ(tree_digest(tree).value(), before.value());
  // Only the log is left: no entry, no temporary directory.
  std::vector<std::string> left;
  for (const auto& e : std::filesystem::directory_iterator(tmp.path() + "/cgmem/kernels"))
    left.push_back(e.path().filename().string());
  ASSERT_EQ(left.size(), 1u);
  EXPECT_TRUE(left[0].ends_with(".failed.log")) << left[0];
  auto list = testing::run_cgmem("kernel list", "XDG_CACHE_HOME=" + tmp.path() + " ");
  EXPECT_EQ(list.code, 0);
  EXPECT_NE(list.text.find("no kernels built in"), std::string::npos) << list.text;
}

TEST(KernelVmCli, AnUnbuiltNameSaysHowToBuildIt) {
  TempDir tmp;
  auto out = testing::run_cgmem("vm --kernel hz100-throttle -- version", "XDG_CACHE_HOME=" + tmp.path() + " ");
  EXPECT_EQ(out.code, 2);
  EXPECT_NE(out.text.find("cgmem: error: no kernel named hz100-throttle in the cache " + tmp.path() +
                          "/cgmem/kernels (build it first: cgmem kernel build --hz 100 --patch memory-high-throttle)"),
            std::string::npos)
      << out.text;
}

TEST(KernelListCli, ShowsVersionPatchesAndUpstream) {
  TempDir tmp;
  std::string k = tmp.path() + "/cgmem/kernels";
  Entry both = write_entry(k, "hz1000-throttle-slots", "aaaaaaaaaaaa", "2026-11-01T00:00:00Z");
  both.patches = {kThrottle, kSlots};
  both.version = "6.12.117";
  std::ofstream(both.dir + "/" + kEntryFile) << entry_json(both);
  Entry src = write_entry(k, "6.16.3-hz1000-slots", "bbbbbbbbbbbb", "2026-11-02T00:00:00Z");
  src.upstream = {kSlots};
  src.version = "6.16.3";
  std::ofstream(src.dir + "/" + kEntryFile) << entry_json(src);
  auto out = testing::run_cgmem("kernel list", "XDG_CACHE_HOME=" + tmp.path() + " ");
  ASSERT_EQ(out.code, 0) << out.text;
  // The name column is as wide as the longest name.
  EXPECT_NE(out.text.find("name                  key              hz version   patches "), std::string::npos)
      << out.text;
  EXPECT_NE(out.text.find("6.16.3-hz1000-slots   bbbbbbbbbbbb   1000 6.16.3    memcg-stock-slots (upstream)"),
            std::string::npos) << out.text;
  EXPECT_NE(out.text.find("hz1000-throttle-slots aaaaaaaaaaaa   1000 6.12.117  memory-high-throttle,memcg-stock-slots"),
            std::string::npos) << out.text;
  auto json = testing::run_shell("XDG_CACHE_HOME=" + tmp.path() + " " + CGMEM_BINARY + " kernel list --json");
  auto j = nlohmann::json::parse(json.text, nullptr, false);
  ASSERT_TRUE(j.is_object()) << json.text;
  ASSERT_EQ(j["kernels"].size(), 2u);
  EXPECT_EQ(j["kernels"][0]["name"], "6.16.3-hz1000-slots");
  EXPECT_EQ(j["kernels"][0]["upstream"], nlohmann::json::array({"memcg-stock-slots"}));
  EXPECT_EQ(j["kernels"][1]["patches"], nlohmann::json::array({"memory-high-throttle", "memcg-stock-slots"}));
  EXPECT_EQ(j["kernels"][1]["patch"], "memory-high-throttle,memcg-stock-slots");
}

TEST(KernelBuildCli, PatchIsRepeatableAndUnknownOnesRefused) {
  TempDir tmp;
  auto out = testing::run_cgmem("kernel build --patch memory-high-throttle --patch nope --plan",
                                "XDG_CACHE_HOME=" + tmp.path() + " ");
  EXPECT_EQ(out.code, 2) << out.text;
  EXPECT_NE(out.text.find("--patch: nope not in {memory-high-throttle,memcg-stock-slots,memcg-trace}"), std::string::npos)
      << out.text;
}

// --stock-slots against each kind of kernel, without booting one.
class StockSlots : public ::testing::Test {
 protected:
  std::string entry(const std::string& name, const std::vector<std::string>& patches, const std::string& version,
                    const std::vector<std::string>& upstream = {}) {
    Entry e = write_entry(tmp.path(), name, "aaaaaaaaaaaa", "2026-11-01T00:00:00Z");
    e.patches = patches;
    e.upstream = upstream;
    e.version = version;
    std::ofstream(e.dir + "/" + kEntryFile) << entry_json(e);
    return e.image();
  }
  std::string check(const std::string& image, const std::string& name, int slots) {
    vm::VmOptions options{.kernel = image, .kernel_name = name};
    options.stock_slots = slots;
    auto ok = vm::check_vm_stock_slots(options);
    return ok ? "ok" : ok.error().message();
  }
  TempDir tmp;
};

TEST_F(StockSlots, AKernelWithThePatchTakesOneToSeven) {
  std::string image = entry("hz1000-throttle-slots", {kThrottle, kSlots}, "6.12.117");
  EXPECT_EQ(check(image, "hz1000-throttle-slots", 1), "ok");
  EXPECT_EQ(check(image, "hz1000-throttle-slots", 7), "ok");
  EXPECT_EQ(check(image, "hz1000-throttle-slots", 8), "--stock-slots 8: the charge stock has 1 to 7 slots per CPU");
  vm::VmOptions options{.kernel = image};
  options.stock_slots = 4;
  EXPECT_EQ(vm::kernel_args(options), (std::vector<std::string>{"memcontrol.stock_slots=4"}));
  EXPECT_TRUE(vm::kernel_args(vm::VmOptions{}).empty());
  vm::QemuSpec spec{.kernel = image, .kernel_args = vm::kernel_args(options)};
  auto argv = vm::qemu_argv(spec);
  auto append = std::find(argv.begin(), argv.end(), "-append");
  ASSERT_NE(append, argv.end());
  EXPECT_EQ(*(append + 1), vm::kernel_cmdline(vm::Accel::tcg) + " memcontrol.stock_slots=4");
  auto effect = vm::stock_slots_in_effect(std::nullopt, vm::read_built(image), "");
  EXPECT_EQ(effect.slots, 1);
  EXPECT_EQ(effect.source, "default");
  effect = vm::stock_slots_in_effect(5, vm::read_built(image), "");
  EXPECT_EQ(effect.slots, 5);
  EXPECT_EQ(effect.source, "--stock-slots");
}

TEST_F(StockSlots, AKernelWithoutThePatchIsRefusedSayingHowToBuildOne) {
  std::string hint = " (build one: cgmem kernel build --hz 1000 --patch memory-high-throttle --patch "
                     "memcg-stock-slots, then boot it with --kernel hz1000-throttle-slots)";
  std::string image = entry("hz1000-throttle", {kThrottle}, "6.12.117");
  EXPECT_EQ(check(image, "hz1000-throttle", 2),
            "--stock-slots 2 needs a kernel with the memcg-stock-slots patch; hz1000-throttle was built with "
            "memory-high-throttle" + hint);
  std::string plain = entry("hz250", {}, "6.12.117");
  EXPECT_EQ(check(plain, "hz250", 2),
            "--stock-slots 2 needs a kernel with the memcg-stock-slots patch; hz250 was built with no patch" + hint);
  std::string bare = tmp.path() + "/bzImage";
  std::ofstream(bare) << "not a kernel";
  EXPECT_EQ(check(bare, "", 2),
            "--stock-slots 2 needs a kernel with the memcg-stock-slots patch; " + bare +
                " has no build.json beside it, so it is not a kernel cgmem built with the patch" + hint);
  EXPECT_EQ(check("", "", 2),
            "--stock-slots 2 needs a kernel with the memcg-stock-slots patch; Debian's kernel has one charge stock "
            "slot per CPU, fixed" + hint);
}

TEST_F(StockSlots, A616KernelIsRefusedItsSevenSlotsAreUpstream) {
  std::string image = entry("6.16.3-hz1000-slots", {}, "6.16.3", {kSlots});
  EXPECT_EQ(check(image, "6.16.3-hz1000-slots", 3),
            "--stock-slots 3: the kernel 6.16.3-hz1000-slots is Linux 6.16.3, whose charge stock has 7 slots per "
            "CPU upstream (NR_MEMCG_STOCK), fixed: it has no memcontrol.stock_slots (leave --stock-slots out, or "
            "build a 6.12 kernel with the patch: cgmem kernel build --hz 1000 --patch memory-high-throttle --patch "
            "memcg-stock-slots, then boot it with --kernel hz1000-throttle-slots)");
  auto effect = vm::stock_slots_in_effect(std::nullopt, vm::read_built(image), "");
  EXPECT_EQ(effect.slots, 7);
  EXPECT_EQ(effect.source, "version");
  EXPECT_TRUE(vm::slots_upstream("6.16.3"));
  EXPECT_TRUE(vm::slots_upstream("6.18.0-cgmem-6.18.0-hz1000"));
  EXPECT_TRUE(vm::slots_upstream("7.0.1"));
  EXPECT_FALSE(vm::slots_upstream("6.12.117+deb12-cloud-amd64"));
  EXPECT_FALSE(vm::slots_upstream("6.1.0"));
  EXPECT_FALSE(vm::slots_upstream(""));
}

TEST(KernelVmCli, StockSlotsOnDebiansKernelIsRefusedBeforeAnythingIsFetched) {
  TempDir tmp;
  auto out = testing::run_cgmem("vm --stock-slots 2 -- version", "XDG_CACHE_HOME=" + tmp.path() + " ");
  EXPECT_EQ(out.code, 2) << out.text;
  EXPECT_NE(out.text.find("cgmem: error: --stock-slots 2 needs a kernel with the memcg-stock-slots patch; Debian's "
                          "kernel has one charge stock slot per CPU, fixed (build one: cgmem kernel build --hz 1000 "
                          "--patch memory-high-throttle --patch memcg-stock-slots"),
            std::string::npos)
      << out.text;
  EXPECT_FALSE(std::filesystem::exists(tmp.path() + "/cgmem"));  // nothing fetched
  auto range = testing::run_cgmem("vm --stock-slots 8 -- version", "XDG_CACHE_HOME=" + tmp.path() + " ");
  EXPECT_EQ(range.code, 2) << range.text;
}

}  // namespace
}  // namespace cgmem::kernel
