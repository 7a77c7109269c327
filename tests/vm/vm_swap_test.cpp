// The guest's swap kind, chosen and checked against the kernel's .config
// before anything boots (vm/swap.h).
#include <gtest/gtest.h>

#include "support/fixture.h"
#include "support/temp_dir.h"
#include "vm/swap.h"

namespace cgmem::vm {
namespace {

GuestKernel kernel_with(testing::TempDir& dir, const std::string& config) {
  GuestKernel k{.image = dir.path() + "/bzImage", .name = "test-kernel"};
  k.config = dir.path() + "/config";
  testing::spit(k.config, config);
  return k;
}

TEST(VmSwap, ConfigOptionReadsYesModuleOrNothing) {
  std::string text = "# CONFIG_ZSWAP is not set\nCONFIG_ZRAM=m\nCONFIG_ZRAM_DEF_COMP=\"lz4\"\nCONFIG_SWAP=y\n";
  EXPECT_EQ(config_option(text, "CONFIG_SWAP"), "y");
  EXPECT_EQ(config_option(text, "CONFIG_ZRAM"), "m");
  EXPECT_EQ(config_option(text, "CONFIG_ZSWAP"), "");
  EXPECT_EQ(config_option(text, "CONFIG_ZRAM_DEF"), "") << "a prefix of another option is not it";
}

TEST(VmSwap, NoSwapUnlessAskedAndNoKindWithoutASize) {
  GuestKernel none;
  EXPECT_EQ(*choose_swap_kind({}, none), "none");
  auto kind = choose_swap_kind({.kind = "disk"}, none);
  ASSERT_FALSE(kind);
  EXPECT_NE(kind.error().message().find("--swap-kind needs a swap"), std::string::npos);
  auto zswap = choose_swap_kind({.zswap = true}, none);
  ASSERT_FALSE(zswap);
  EXPECT_NE(zswap.error().message().find("--zswap needs a swap"), std::string::npos);
  EXPECT_FALSE(choose_swap_kind({.bytes = 4096}, none)) << "under 1 MiB";
}

TEST(VmSwap, ZramWhereTheKernelHasItElseDisk) {
  testing::TempDir dir;
  GuestKernel builtin = kernel_with(dir, "CONFIG_SWAP=y\nCONFIG_ZRAM=y\nCONFIG_ZSWAP=y\n");
  EXPECT_EQ(*choose_swap_kind({.bytes = 64 << 20}, builtin), "zram");
  EXPECT_EQ(*choose_swap_kind({.bytes = 64 << 20, .kind = "disk"}, builtin), "disk");
  EXPECT_EQ(*choose_swap_kind({.bytes = 64 << 20, .zswap = true}, builtin), "disk") << "zswap sits on a disk";

  testing::TempDir other;
  GuestKernel without = kernel_with(other, "CONFIG_SWAP=y\n# CONFIG_ZRAM is not set\n# CONFIG_ZSWAP is not set\n");
  EXPECT_EQ(*choose_swap_kind({.bytes = 64 << 20}, without), "disk");
  auto zram = choose_swap_kind({.bytes = 64 << 20, .kind = "zram"}, without);
  ASSERT_FALSE(zram);
  EXPECT_NE(zram.error().message().find("has no zram"), std::string::npos);
  // A module the kernel has no modules directory for is not there.
  GuestKernel module = kernel_with(other, "CONFIG_SWAP=y\nCONFIG_ZRAM=m\n");
  EXPECT_EQ(*choose_swap_kind({.bytes = 64 << 20}, module), "disk");
}

// A bzImage without a .config: the guest looks for zram itself.
TEST(VmSwap, WithoutAConfigTheGuestChooses) {
  GuestKernel bare{.image = "/nonexistent/bzImage"};
  EXPECT_EQ(*choose_swap_kind({.bytes = 64 << 20}, bare), "auto");
  EXPECT_EQ(*choose_swap_kind({.bytes = 64 << 20, .kind = "disk"}, bare), "disk");
  EXPECT_EQ(*choose_swap_kind({.bytes = 64 << 20, .zswap = true}, bare), "disk");
}

TEST(VmSwap, ZswapNeedsItsConfigAndADisk) {
  testing::TempDir dir;
  GuestKernel debian = kernel_with(dir, "CONFIG_SWAP=y\nCONFIG_ZRAM=y\n# CONFIG_ZSWAP is not set\n");
  auto refused = choose_swap_kind({.bytes = 64 << 20, .zswap = true}, debian);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message().find("built without zswap (CONFIG_ZSWAP)"), std::string::npos)
      << refused.error().message();
  EXPECT_NE(refused.error().message().find("cgmem kernel build"), std::string::npos);
  auto zram = choose_swap_kind({.bytes = 64 << 20, .kind = "zram", .zswap = true}, debian);
  ASSERT_FALSE(zram);
  EXPECT_NE(zram.error().message().find("not zram"), std::string::npos);
}

TEST(VmSwap, TheGuestConfigLines) {
  EXPECT_EQ(swap_config_lines({.bytes = 64 << 20, .zswap = true}, "disk"),
            "SWAP_BYTES=67108864\nSWAP_KIND=disk\nZSWAP=1\n");
  EXPECT_EQ(swap_config_lines({}, "none"), "SWAP_BYTES=0\nSWAP_KIND=none\nZSWAP=0\n");
}

}  // namespace
}  // namespace cgmem::vm
