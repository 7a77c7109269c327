// What the own-program boot brought back of `cgmem vm --tree` and the
// guest's user (tests/own_program/vm/run.sh): Debian's JDK, at its own path
// on the run disk, runs under `cgmem run --command` and sizes its heap from
// the run's memory.max; `su cgmem` runs as uid 1000.
#include <gtest/gtest.h>

#include <cstdint>
#include <iostream>
#include <regex>

#include "support/vm_out.h"

namespace {

const std::string kOut = CGMEM_OWN_OUT;

std::string read(const std::string& path) { return cgmem::testing::slurp_out(kOut, path); }

// MaxHeapSize from `java -XX:+PrintFlagsFinal -version`, 0 if absent.
uint64_t max_heap(const std::string& config) {
  std::string flags = read("jvm-runs/jvm-" + config + "/command.stdout");
  std::smatch m;
  static const std::regex line(R"(size_t MaxHeapSize\s+=\s+(\d+))");
  return std::regex_search(flags, m, line) ? std::stoull(m[1]) : 0;
}

TEST(RuntimeTreeVm, TheJdkFromItsTreeSizesItsHeapFromMemoryMax) {
  for (const char* config : {"none", "max"})
    EXPECT_EQ(read("jvm-" + std::string(config) + ".status"), "0\n") << read("jvm-" + std::string(config) + ".txt");
  uint64_t unlimited = max_heap("none"), limited = max_heap("max");
  ASSERT_GT(unlimited, 0u) << read("jvm-runs/jvm-none/workload.stderr");
  ASSERT_GT(limited, 0u) << read("jvm-runs/jvm-max/workload.stderr");
  // JDK 17's default heap of the memory it sees: half below about 252 MiB
  // (MinRAMPercentage 50), its built-in 126 MiB up to about 504 MiB, a
  // quarter above (MaxRAMPercentage 25). The guest's 512 MiB of RAM gives
  // 126 MiB; memory.max 192M gives 96 MiB only if the JVM read it.
  EXPECT_LE(limited, 96ull << 20) << "MaxHeapSize " << limited << " under memory.max 192M";
  EXPECT_LT(limited, unlimited);
  std::cout << "MaxHeapSize: " << unlimited << " without a limit, " << limited << " under memory.max 192M\n";
}

TEST(RuntimeTreeVm, TheGuestsUserIsUid1000) {
  EXPECT_EQ(read("su.txt"), "1000\n1000\n1000\n");
}

}  // namespace
