// `cgmem vm` errors a user meets before any boot, word for word.
#include <gtest/gtest.h>

#include "support/run_cgmem.h"

#include <string>

namespace {

using cgmem::testing::Output;

Output run(const std::string& args, const std::string& env = "") {
  return cgmem::testing::run_cgmem(args, env);
}

TEST(VmCli, NothingToRun) {
  auto out = run("vm");
  EXPECT_EQ(out.code, 2);
  EXPECT_EQ(out.text, "cgmem: error: nothing to run: give a command after --, e.g. cgmem vm -- version\n");
}

TEST(VmCli, HelpNamesTheOptions) {
  auto out = run("vm --help");
  EXPECT_EQ(out.code, 0);
  for (const char* option : {"--mem", "--cpus", "--disk", "--timeout", "--keep", "--kernel", "--swap", "--out",
                             "--script", "--file", "--cgmem", "--json"}) {
    EXPECT_NE(out.text.find(option), std::string::npos) << option;
  }
}

TEST(VmCli, DynamicCgmemIsRefused) {
  auto out = run("vm --cgmem /bin/sh -- version");
  EXPECT_EQ(out.code, 3);
  EXPECT_EQ(out.text, "cgmem: error: --cgmem /bin/sh is dynamically linked; the guest needs a static cgmem\n");
}

TEST(VmCli, KernelThatIsNotABzImage) {
  // /bin/busybox stands in for a static cgmem: only the kernel is checked here.
  auto out = run("vm --cgmem /bin/busybox --kernel /etc/passwd -- version");
  EXPECT_EQ(out.code, 3);
  EXPECT_EQ(out.text,
            "cgmem: error: not an x86 bzImage (no HdrS boot header): /etc/passwd (--kernel takes a bzImage, e.g. "
            "arch/x86/boot/bzImage)\n");
}

TEST(VmCli, MissingQemuSaysHowToInstallIt) {
  auto out = run("vm --cgmem /bin/busybox -- version", "PATH=/nonexistent ");
  EXPECT_EQ(out.code, 3);
  EXPECT_EQ(out.text,
            "cgmem: error: qemu-system-x86_64 not found (install it: apt-get install qemu-system-x86)\n");
}

TEST(VmCli, BadSize) {
  auto out = run("vm --mem lots -- version");
  EXPECT_EQ(out.code, 2);
  EXPECT_NE(out.text.find("cgmem: error: --mem: "), std::string::npos) << out.text;
}

}  // namespace
