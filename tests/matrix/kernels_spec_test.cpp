// [[kernels]] in a matrix spec: labels, boot options, workloads restricted
// to some kernels, and the plan of each kernel's runs in BATCH/LABEL.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>

#include "matrix/plan.h"
#include "matrix/spec.h"
#include "support/run_cgmem.h"
#include "support/temp_dir.h"

namespace cgmem::matrix {
namespace {

constexpr const char* kBody = R"(
[[configs]]
name = "high"
high = "28M"
[[workloads]]
name = "w"
args = ["--target", "40M"]
)";

std::string error_of(const std::string& text) {
  auto spec = parse_spec(text, "s.toml");
  return spec ? "accepted" : spec.error().message();
}

const std::string kTail = ": s.toml (see docs/matrix.md for the format)";

TEST(MatrixKernels, ListsKernelsWithLabelsAndStockSlots) {
  auto spec = parse_spec(std::string("[[kernels]]\nname = \"debian-6.12\"\n"
                                     "[[kernels]]\nname = \"hz1000-throttle-slots\"\nstock_slots = 7\n"
                                     "[[kernels]]\nname = \"hz1000-throttle-slots\"\nlabel = \"one\"\nstock_slots = 1\n") +
                             kBody,
                         "s.toml");
  ASSERT_TRUE(spec.has_value()) << spec.error().message();
  ASSERT_EQ(spec->kernels.size(), 3u);
  EXPECT_EQ(spec->kernels[0].label, "debian-6.12");
  EXPECT_FALSE(spec->kernels[0].stock_slots);
  EXPECT_EQ(spec->kernels[1].label, "hz1000-throttle-slots-slots7");
  EXPECT_EQ(spec->kernels[1].stock_slots, 7);
  EXPECT_EQ(spec->kernels[2].label, "one");
  EXPECT_EQ(spec->kernels[2].name, "hz1000-throttle-slots");
  EXPECT_FALSE(spec->kernel);
}

TEST(MatrixKernels, TheKernelKeyIsOneKernel) {
  auto spec = parse_spec(std::string("kernel = \"/boot/vmlinuz-x\"\n") + kBody, "s.toml");
  ASSERT_TRUE(spec.has_value()) << spec.error().message();
  ASSERT_EQ(spec->kernels.size(), 1u);
  EXPECT_EQ(spec->kernels[0].name, "/boot/vmlinuz-x");
  EXPECT_EQ(spec->kernels[0].label, "/boot/vmlinuz-x");  // one kernel: no directory of its own
  auto runs = plan(*spec, {.reps = 1, .batch_dir = "/b"});
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].kernel, "/boot/vmlinuz-x");
  EXPECT_EQ(kernel_batch_dir(*spec, "/b", runs[0].kernel), "/b");
}

TEST(MatrixKernels, BadKernelsAreErrorsWordForWord) {
  const std::string hint =
      " (a name is 1 to 64 letters, digits, '-', '_' or '.', starting with a letter or digit)";
  EXPECT_EQ(error_of(std::string("kernel = \"a\"\n[[kernels]]\nname = \"b\"\n") + kBody),
            "matrix spec: kernel and [[kernels]] exclude each other: list the kernel under [[kernels]]" + kTail);
  EXPECT_EQ(error_of(std::string("[[kernels]]\nlabel = \"b\"\n") + kBody),
            "matrix spec: kernels[0] has no name (a kernel name or a bzImage path)" + kTail);
  EXPECT_EQ(error_of(std::string("[[kernels]]\nname = \"a\"\nstock_slots = 8\n") + kBody),
            "matrix spec: kernel a.stock_slots = 8 is out of range (1 to 7)" + kTail);
  EXPECT_EQ(error_of(std::string("[[kernels]]\nname = \"a\"\nstock_slots = 0\n") + kBody),
            "matrix spec: kernel a.stock_slots = 0 is out of range (1 to 7)" + kTail);
  EXPECT_EQ(error_of(std::string("[[kernels]]\nname = \"a\"\nstock_slots = \"7\"\n") + kBody),
            "matrix spec: kernel a.stock_slots must be an integer (string given)" + kTail);
  EXPECT_EQ(error_of(std::string("[[kernels]]\nname = \"a\"\nslots = 7\n") + kBody),
            "matrix spec: unknown key 'slots' in kernels[0]" + kTail);
  EXPECT_EQ(error_of(std::string("[[kernels]]\nname = \"/boot/bzImage\"\n") + kBody),
            "matrix spec: kernel label '/boot/bzImage' is not allowed: s.toml" + hint);
  EXPECT_EQ(error_of(std::string("[[kernels]]\nname = \"a\"\nlabel = \"../x\"\n") + kBody),
            "matrix spec: kernel label '../x' is not allowed: s.toml" + hint);
  EXPECT_EQ(error_of(std::string("[[kernels]]\nname = \"a\"\nlabel = 3\n") + kBody),
            "matrix spec: kernels[0].label must be a string (integer given)" + kTail);
  EXPECT_EQ(error_of(std::string("[[kernels]]\nname = \"a\"\n[[kernels]]\nname = \"a\"\n") + kBody),
            "matrix spec: two kernels are labelled a" + kTail);
  EXPECT_EQ(error_of(std::string("kernels = []\n") + kBody),
            "matrix spec: kernels must be [[kernels]] tables, at least one" + kTail);
  EXPECT_EQ(error_of(std::string("kernels = [\"a\"]\n") + kBody), "matrix spec: kernels[0] is not a table" + kTail);
  EXPECT_EQ(error_of(std::string("[[kernels]]\nname = \"a\"\n") + kBody + "kernels = [\"b\"]\n"),
            "matrix spec: workload w names kernel 'b', which is not defined" + kTail);
  EXPECT_EQ(error_of(std::string(kBody) + "kernels = [\"b\"]\n"),
            "matrix spec: workload w names kernel 'b', which is not defined" + kTail);
}

// A [[kernels]] entry's swap: one boot's swap setting (docs/matrix.md, "Swap").
TEST(MatrixKernels, EachKernelEntryHasItsSwap) {
  auto spec = parse_spec(std::string("[[kernels]]\nname = \"a\"\nlabel = \"noswap\"\n"
                                     "[[kernels]]\nname = \"a\"\nlabel = \"zram\"\nswap = \"256M\"\nswap_kind = \"zram\"\n"
                                     "[[kernels]]\nname = \"b\"\nlabel = \"zswap\"\nswap = \"64M\"\nzswap = true\n") +
                             kBody + "swap_high = \"16M\"\n",
                         "s.toml");
  ASSERT_TRUE(spec.has_value()) << spec.error().message();
  EXPECT_EQ(spec->kernels[0].swap, "");
  EXPECT_EQ(spec->kernels[1].swap, "256M");
  EXPECT_EQ(spec->kernels[1].swap_kind, "zram");
  EXPECT_FALSE(spec->kernels[1].zswap);
  EXPECT_TRUE(spec->kernels[2].zswap);
  EXPECT_EQ(spec->workloads[0].flags.at("swap_high"), "16M");
  EXPECT_EQ(run_flag("swap_high"), "--swap-high");
  EXPECT_EQ(error_of(std::string("[[kernels]]\nname = \"a\"\nswap_kind = \"disk\"\n") + kBody),
            "matrix spec: kernels[0] sets swap_kind without a swap size: add swap = \"SIZE\"" + kTail);
  EXPECT_EQ(error_of(std::string("[[kernels]]\nname = \"a\"\nswap = \"0\"\nzswap = true\n") + kBody),
            "matrix spec: kernels[0] sets zswap without a swap size: add swap = \"SIZE\"" + kTail);
  EXPECT_EQ(error_of(std::string("[[kernels]]\nname = \"a\"\nswap = \"1G\"\nswap_kind = \"zram\"\nzswap = true\n") + kBody),
            "matrix spec: kernels[0]: zswap sits in front of a disk swap, not zram (swap_kind = \"disk\" or none)" + kTail);
  EXPECT_EQ(error_of(std::string("[[kernels]]\nname = \"a\"\nswap = \"lots\"\n") + kBody),
            "matrix spec: kernels[0].swap = 'lots' is not a size (256M)" + kTail);
  EXPECT_EQ(error_of(std::string("[[kernels]]\nname = \"a\"\nswap = 256\n") + kBody),
            "matrix spec: kernels[0].swap must be a string (integer given)" + kTail);
  EXPECT_EQ(error_of(std::string("[[kernels]]\nname = \"a\"\nswap = \"1G\"\nswap_kind = \"nvme\"\n") + kBody),
            "matrix spec: kernels[0].swap_kind = 'nvme' is not disk or zram" + kTail);
  EXPECT_EQ(error_of(std::string("[[kernels]]\nname = \"a\"\nswap = \"1G\"\nzswap = \"yes\"\n") + kBody),
            "matrix spec: kernels[0].zswap must be true or false (string given)" + kTail);
}

// The bundled swap batch: four boots, the swap runs only where there is swap.
TEST(MatrixKernels, TheBundledSwapSpec) {
  auto spec = load_spec(std::string(CGMEM_SOURCE_DIR) + "/examples/claims-swap.toml");
  ASSERT_TRUE(spec.has_value()) << spec.error().message();
  std::vector<std::string> labels;
  for (const auto& k : spec->kernels) labels.push_back(k.label);
  EXPECT_EQ(labels, (std::vector<std::string>{"noswap", "disk", "zram", "zswap"}));
  EXPECT_TRUE(spec->kernels[3].zswap);
  auto runs = plan_all(*spec, {.batch_dir = "/b"});
  std::map<std::string, int> per_kernel;
  for (const auto& r : runs) ++per_kernel[r.kernel];
  EXPECT_EQ(per_kernel, (std::map<std::string, int>{{"noswap", 13}, {"disk", 17}, {"zram", 17}, {"zswap", 17}}));
}

TEST(MatrixKernels, NeighboursIsARunFlag) {
  EXPECT_EQ(run_flag("neighbours"), "--neighbours");
  auto spec = parse_spec(std::string(kBody) + "neighbour = \"100ms\"\nneighbours = 8\n", "s.toml");
  ASSERT_TRUE(spec.has_value()) << spec.error().message();
  EXPECT_EQ(spec->workloads[0].flags.at("neighbours"), "8");
  EXPECT_EQ(error_of(std::string(kBody) + "neighbours = \"many\"\n"),
            "matrix spec: workload w.neighbours: 'many' is not a valid value" + kTail);
}

// Each kernel's runs, in BATCH/LABEL, only the workloads that name it.
TEST(MatrixKernels, PlanEachKernelsRunsInItsOwnDirectory) {
  auto spec = parse_spec(std::string("[[kernels]]\nname = \"debian-6.12\"\nlabel = \"a\"\n"
                                     "[[kernels]]\nname = \"hz1000-throttle-slots\"\nlabel = \"b\"\nstock_slots = 7\n") +
                             kBody + "[[workloads]]\nname = \"only-b\"\nkernels = [\"b\"]\nargs = [\"--target\", \"40M\"]\n",
                         "s.toml");
  ASSERT_TRUE(spec.has_value()) << spec.error().message();
  auto all = plan_all(*spec, {.reps = 1, .batch_dir = "/b"});
  std::vector<std::string> names;
  for (const auto& r : all) names.push_back(r.kernel + "/" + r.name);
  EXPECT_EQ(names, (std::vector<std::string>{"a/w-high-r1", "b/w-high-r1", "b/only-b-high-r1"}));
  EXPECT_EQ(kernel_batch_dir(*spec, "/b", "a"), "/b/a");
  auto b = plan(*spec, {.reps = 1, .batch_dir = "/b/b", .kernel = "b"});
  ASSERT_EQ(b.size(), 2u);
  EXPECT_EQ(b[1].workload_args, (std::vector<std::string>{"--target", "40M"}));
  // --kernel NAME: that one kernel, every workload on it, laid out as before.
  override_kernel(*spec, "hz1000");
  auto one = plan_all(*spec, {.reps = 1, .batch_dir = "/b"});
  ASSERT_EQ(one.size(), 2u);
  EXPECT_EQ(one[0].kernel, "hz1000");
  EXPECT_EQ(kernel_batch_dir(*spec, "/b", "hz1000"), "/b");
}

TEST(MatrixKernels, TheBundledKernelsSpec) {
  auto spec = load_spec(std::string(CGMEM_SOURCE_DIR) + "/examples/kernels.toml");
  ASSERT_TRUE(spec.has_value()) << spec.error().message();
  std::vector<std::string> labels;
  for (const auto& k : spec->kernels) labels.push_back(k.label);
  EXPECT_EQ(labels, (std::vector<std::string>{"debian-6.1", "debian-6.12", "slots7", "slots1"}));
  auto runs = plan_all(*spec, {.batch_dir = "/b"});
  std::map<std::string, int> per_kernel;
  double caps = 0;
  for (const auto& r : runs) ++per_kernel[r.kernel], caps += r.cap_s;
  // The claims batch's 13 runs on three kernels; 8 neighbours on slots7; one neighbour on slots1.
  EXPECT_EQ(per_kernel, (std::map<std::string, int>{{"debian-6.1", 13}, {"debian-6.12", 13}, {"slots7", 14}, {"slots1", 1}}));
  EXPECT_EQ(caps, 3 * 408 + 20 + 20);
  auto nb8 = std::find_if(runs.begin(), runs.end(), [](auto& r) { return r.name == "anon-over-nb8-high-r1"; });
  ASSERT_NE(nb8, runs.end());
  EXPECT_EQ(nb8->flags.at("neighbours"), "8");
  EXPECT_EQ(nb8->kernel, "slots7");
}

// `cgmem matrix --plan` lists each kernel's runs after a line naming its
// session, and notes a kernel not built instead of refusing the plan.
TEST(MatrixKernels, ThePlanListsTheRunsPerKernel) {
  cgmem::testing::TempDir temp;
  std::string spec = temp.path() + "/k.toml";
  std::ofstream(spec) << "reps = 1\n[[kernels]]\nname = \"debian-6.12\"\n[[kernels]]\nname = \"no-such-kernel\"\n"
                         "stock_slots = 7\n" << kBody << "[[workloads]]\nname = \"x\"\nkernels = [\"debian-6.12\"]\n"
                         "args = [\"--target\", \"40M\"]\n";
  std::string out = temp.path() + "/b";
  auto r = cgmem::testing::run_cgmem_split("matrix " + spec + " --plan --out " + out);
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_EQ(r.out.find("plan k: 3 runs in the VM on 2 kernels (the spec lists 2 kernels); the guest: 2 CPUs, 960MiB "
                       "of RAM (--vm-mem 1G less what its kernel keeps)\n"),
            0u)
      << r.out;
  EXPECT_NE(r.out.find("note: kernel no-such-kernel-slots7: --kernel no-such-kernel: no such file"), std::string::npos)
      << r.out;
  auto at = [&](const std::string& line) { return r.out.find(line); };
  size_t first = at("kernel  debian-6.12: 2 runs in " + out + "/debian-6.12, one session of `cgmem vm --kernel debian-6.12`\n");
  size_t w = at("run     w-high-r1: cgmem run --name w-high-r1 --out " + out + "/debian-6.12/w-high-r1 ");
  size_t x = at("run     x-high-r1: cgmem run --name x-high-r1 --out " + out + "/debian-6.12/x-high-r1 ");
  size_t second = at("kernel  no-such-kernel-slots7: 1 run in " + out +
                     "/no-such-kernel-slots7, one session of `cgmem vm --kernel no-such-kernel --stock-slots 7`\n");
  size_t w2 = at("run     w-high-r1: cgmem run --name w-high-r1 --out " + out + "/no-such-kernel-slots7/w-high-r1 ");
  ASSERT_NE(w2, std::string::npos) << r.out;
  EXPECT_LT(first, w);
  EXPECT_LT(w, x);
  EXPECT_LT(x, second);
  EXPECT_LT(second, w2);
  EXPECT_NE(at("plan k: 3 of 3 runs would run, 0 refused"), std::string::npos) << r.out;
  auto json = nlohmann::json::parse(cgmem::testing::run_cgmem_split("matrix " + spec + " --plan --json --out " + out).out);
  EXPECT_EQ(json["kernel"], nullptr);
  EXPECT_EQ(json["kernels"][1], (nlohmann::json{{"label", "no-such-kernel-slots7"}, {"name", "no-such-kernel"},
                                                {"stock_slots", 7}, {"runs", 1}, {"swap", nullptr},
                                                {"swap_kind", nullptr}, {"zswap", false}}));
  EXPECT_EQ(json["runs"][2]["kernel"], "no-such-kernel-slots7");
  // Natively, a spec of several kernels is refused: each needs a VM session.
  auto native = cgmem::testing::run_cgmem_split("matrix " + spec + " --native --plan --out " + out);
  EXPECT_EQ(native.code, 2) << native.out << native.err;
  EXPECT_EQ(native.err, "cgmem: error: matrix: --native: the spec lists 2 kernels (debian-6.12, no-such-kernel-slots7), "
                        "and this host runs one: " + spec + " (run it in the VM (one session per kernel), or pick one "
                        "with --kernel NAME)\n");
  EXPECT_FALSE(std::filesystem::exists(out));
}

}  // namespace
}  // namespace cgmem::matrix
