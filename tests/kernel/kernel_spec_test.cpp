// A matrix spec that names its kernel and the RFC's shift, and the `cgmem vm`
// command line that runs it (src/cli/matrix_vm.cpp).
#include <gtest/gtest.h>

#include <algorithm>

#include "cli/matrix_vm.h"
#include "matrix/spec.h"

namespace {

constexpr const char* kSpec = R"(name = "rfc"
kernel = "hz1000-throttle"
[[configs]]
name = "shift3"
high = "10M"
high_throttle = 3
[[workloads]]
name = "w"
args = ["--target", "1G"]
)";

TEST(KernelSpec, NamesItsKernelAndTheShift) {
  auto spec = cgmem::matrix::parse_spec(kSpec, "/specs/rfc.toml");
  ASSERT_TRUE(spec.has_value()) << spec.error().message();
  EXPECT_EQ(spec->kernel, "hz1000-throttle");
  EXPECT_EQ(spec->configs[0].flags.at("high_throttle"), "3");
  EXPECT_EQ(cgmem::matrix::run_flag("high_throttle"), "--high-throttle");
  auto bad = cgmem::matrix::parse_spec("kernel = 3\n", "s.toml");
  ASSERT_FALSE(bad.has_value());
  EXPECT_NE(bad.error().message().find("kernel must be a kernel name or a bzImage path"), std::string::npos);
}

std::vector<std::string> vm_side(const std::vector<std::string>& args) {
  return {args.begin(), std::ranges::find(args, "--")};
}

TEST(KernelSpec, TheVmBootsTheSpecsKernelUnlessTheFlagSaysOtherwise) {
  auto spec = cgmem::matrix::parse_spec(kSpec, "/specs/rfc.toml");
  ASSERT_TRUE(spec.has_value());
  cgmem::cli::MatrixFlags f;
  auto args = vm_side(cgmem::cli::vm_arguments(f, *spec, "/out", "", 60));
  auto at = std::ranges::find(args, "--kernel");
  ASSERT_NE(at, args.end());
  EXPECT_EQ(*(at + 1), "hz1000-throttle");
  EXPECT_EQ(std::ranges::find(args, "--swap"), args.end());
  f.kernel = "hz1000";
  f.vm_swap = "64M";
  args = vm_side(cgmem::cli::vm_arguments(f, *spec, "/out", "", 60));
  EXPECT_EQ(*(std::ranges::find(args, "--kernel") + 1), "hz1000");
  EXPECT_EQ(*(std::ranges::find(args, "--swap") + 1), "64M");
}

}  // namespace

namespace {

// [[kernels]]: each session boots its kernel with its stock slots, and the
// guest's matrix runs that kernel's runs (--kernel-label).
TEST(KernelSpec, EachKernelsSessionBootsItsKernelWithItsStockSlots) {
  auto spec = cgmem::matrix::parse_spec(R"(name = "k"
[[kernels]]
name = "debian-6.12"
[[kernels]]
name = "hz1000-throttle-slots"
stock_slots = 7
[[configs]]
name = "high"
high = "10M"
[[workloads]]
name = "w"
args = ["--target", "20M"]
)", "/specs/k.toml");
  ASSERT_TRUE(spec.has_value()) << spec.error().message();
  cgmem::cli::MatrixFlags f;
  auto args = cgmem::cli::vm_arguments(f, *spec, "/out/hz1000-throttle-slots-slots7", "", 60, &spec->kernels[1]);
  auto dashes = std::ranges::find(args, "--");
  std::vector<std::string> vm(args.begin(), dashes), inner(dashes + 1, args.end());
  EXPECT_EQ(*(std::ranges::find(vm, "--kernel") + 1), "hz1000-throttle-slots");
  EXPECT_EQ(*(std::ranges::find(vm, "--stock-slots") + 1), "7");
  EXPECT_EQ(*(std::ranges::find(vm, "--out") + 1), "/out/hz1000-throttle-slots-slots7");
  EXPECT_EQ(*(std::ranges::find(inner, "--kernel-label") + 1), "hz1000-throttle-slots-slots7");
  args = cgmem::cli::vm_arguments(f, *spec, "/out/debian-6.12", "", 60, &spec->kernels[0]);
  EXPECT_EQ(std::ranges::find(args, "--stock-slots"), args.end());
}

}  // namespace
