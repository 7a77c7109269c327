// `cgmem vm --program`: the ELF reader (interp, DT_NEEDED, RUNPATH) and the
// closure a program brings into the guest, on real files of this machine
// (this test binary is dynamic; busybox-static is not) and on broken bytes.
#include <gtest/gtest.h>

#include <elf.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "vm/elf_deps.h"
#include "vm/initramfs.h"
#include "vm/program_files.h"

namespace fs = std::filesystem;
using namespace cgmem::vm;

namespace {

std::string self() { return fs::read_symlink("/proc/self/exe").string(); }

bool has_guest(const std::vector<GuestFile>& files, const std::string& guest) {
  return std::any_of(files.begin(), files.end(), [&](const GuestFile& f) { return f.guest_path == guest; });
}

TEST(ElfDeps, ThisTestBinaryNeedsLibcThroughItsLoader) {
  auto deps = read_elf_deps(self());
  ASSERT_TRUE(deps) << deps.error().message();
  EXPECT_TRUE(deps->x86_64);
  EXPECT_EQ(deps->interp, "/lib64/ld-linux-x86-64.so.2");
  EXPECT_NE(std::find(deps->needed.begin(), deps->needed.end(), "libc.so.6"), deps->needed.end());
  EXPECT_NE(std::find(deps->needed.begin(), deps->needed.end(), "libstdc++.so.6"), deps->needed.end());
}

TEST(ElfDeps, StaticBusyboxNeedsNothing) {
  if (!fs::exists("/bin/busybox")) GTEST_SKIP() << "no /bin/busybox (busybox-static)";
  auto deps = read_elf_deps("/bin/busybox");
  ASSERT_TRUE(deps) << deps.error().message();
  EXPECT_TRUE(deps->interp.empty());
  EXPECT_TRUE(deps->needed.empty());
}

TEST(ElfDeps, BadBytesAreErrorsThatSayWhere) {
  auto not_elf = parse_elf_deps("#!/bin/sh\necho hi\n", "script");
  ASSERT_FALSE(not_elf);
  EXPECT_EQ(not_elf.error().message(), "not an ELF file: script");
  // A real header whose program headers point past the end of the bytes.
  Elf64_Ehdr h{};
  std::memcpy(h.e_ident, ELFMAG, SELFMAG);
  h.e_ident[EI_CLASS] = ELFCLASS64;
  h.e_machine = EM_X86_64;
  h.e_phoff = 4096, h.e_phnum = 1, h.e_phentsize = sizeof(Elf64_Phdr);
  std::string bytes(reinterpret_cast<const char*>(&h), sizeof h);
  auto cut = parse_elf_deps(bytes, "cut");
  ASSERT_FALSE(cut);
  EXPECT_EQ(cut.error().message(), "ELF program header 0 lies outside the file: cut");
  // Any prefix of a real ELF is an error or a result, never a crash.
  std::ifstream in(self(), std::ios::binary);
  std::string whole((std::istreambuf_iterator<char>(in)), {});
  for (size_t n : {size_t{0}, size_t{63}, size_t{64}, size_t{200}, size_t{4096}, whole.size() / 2})
    (void)parse_elf_deps(std::string_view(whole).substr(0, n), "prefix");
}

TEST(LoaderDirs, ConfIncludesInOrderThenTheSystemDirs) {
  fs::path dir = fs::temp_directory_path() / ("cgmem-ldconf-" + std::to_string(::getpid()));
  fs::create_directories(dir / "conf.d");
  std::ofstream(dir / "ld.so.conf") << "# top\n/opt/first\ninclude conf.d/*.conf\n  /opt/last  # trailing\n";
  std::ofstream(dir / "conf.d/b.conf") << "/opt/b\n";
  std::ofstream(dir / "conf.d/a.conf") << "/opt/a\nhwcap 0 nosegneg\n";
  auto dirs = loader_dirs((dir / "ld.so.conf").string());
  fs::remove_all(dir);
  std::vector<std::string> want = {"/opt/first", "/opt/a", "/opt/b", "/opt/last", "/lib/x86_64-linux-gnu",
                                   "/usr/lib/x86_64-linux-gnu", "/lib", "/usr/lib"};
  EXPECT_EQ(dirs, want);
  EXPECT_EQ(loader_dirs("/nonexistent/ld.so.conf").size(), 4u);
}

TEST(ProgramFiles, ADynamicProgramBringsItsLoaderAndEveryLibraryOnce) {
  auto files = program_files(self(), loader_dirs());
  ASSERT_TRUE(files) << files.error().message();
  // An absolute path keeps its place; the loader its PT_INTERP path; libraries the first system dir.
  EXPECT_EQ(files->front().guest_path, self().substr(1));
  EXPECT_EQ(files->front().mode, 0755u);
  EXPECT_TRUE(has_guest(*files, "lib64/ld-linux-x86-64.so.2"));
  EXPECT_TRUE(has_guest(*files, "lib/x86_64-linux-gnu/libc.so.6"));
  EXPECT_TRUE(has_guest(*files, "lib/x86_64-linux-gnu/libstdc++.so.6"));
  EXPECT_TRUE(has_guest(*files, "lib/x86_64-linux-gnu/libm.so.6"));  // needed by libstdc++, not by us directly
  std::vector<std::string> guests;
  for (const auto& f : *files) guests.push_back(f.guest_path);
  std::sort(guests.begin(), guests.end());
  EXPECT_EQ(std::adjacent_find(guests.begin(), guests.end()), guests.end());
  EXPECT_FALSE(has_guest(*files, "lib/x86_64-linux-gnu/ld-linux-x86-64.so.2"));  // the loader once
}

TEST(ProgramFiles, ANameIsLookedUpInPathAndKeepsItsName) {
  auto files = program_files("sh", loader_dirs());
  ASSERT_TRUE(files) << files.error().message();
  EXPECT_EQ(files->front().guest_path, "usr/local/bin/sh");
}

TEST(ProgramFiles, MissingProgramOrLibraryIsAClearError) {
  auto missing = program_files("cgmem-no-such-program", loader_dirs());
  ASSERT_FALSE(missing);
  EXPECT_TRUE(missing.error().message().starts_with("--program cgmem-no-such-program: not found in PATH"))
      << missing.error().message();
  auto no_libs = program_files(self(), {"/nonexistent"});
  ASSERT_FALSE(no_libs);
  EXPECT_NE(no_libs.error().message().find("is in none of the loader's dirs"), std::string::npos)
      << no_libs.error().message();
}

TEST(ProgramFiles, InitramfsMakesParentDirsOnceAndKeepsModes) {
  GuestFiles files{.busybox = "b", .cgmem = "c"};
  files.extra = {{"usr/local/bin/p", "P", 0755}, {"lib/x86_64-linux-gnu/libx.so.1", "X", 0755},
                 {"usr/local/bin/q", "Q", 0755}, {"usr/local/bin/p", "P", 0755}};
  std::string archive = initramfs_archive(files);
  auto count = [&](const std::string& name) {
    size_t n = 0;
    for (size_t at = archive.find(name + '\0'); at != std::string::npos; at = archive.find(name + '\0', at + 1)) ++n;
    return n;
  };
  EXPECT_EQ(count("usr"), 1u);
  EXPECT_EQ(count("usr/local/bin"), 1u);
  EXPECT_EQ(count("usr/local/bin/p"), 1u);
  EXPECT_EQ(count("lib/x86_64-linux-gnu/libx.so.1"), 1u);
  EXPECT_EQ(count("lib"), 1u);  // already made for the modules
}

}  // namespace
