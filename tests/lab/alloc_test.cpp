// The hot loops allocate nothing: the sampler's tick and the workload's op.
// This binary replaces the global operator new with one that counts calls.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <new>

#include "support/count_allocations.h"

#include "lab/sampler.h"
#include "lab/workload.h"
#include "lab_fixture.h"


namespace cgmem::lab {
namespace {

TEST(NoAllocation, TheCounterSeesAnAllocation) {
  size_t before = cgmem::testing::allocation_count();
  auto* p = new std::string(100, 'x');
  delete p;
  EXPECT_GT(cgmem::testing::allocation_count() - before, 0u);
}

TEST(NoAllocation, SamplerTick) {
  testing::ThrottledTree tree;
  auto sampler = Sampler::open(tree.cgroup, tree.proc_root);
  ASSERT_TRUE(sampler);
  int fd = ::open("/dev/null", O_WRONLY);
  ASSERT_TRUE((*sampler)->tick(1, fd));  // the first tick opens the process's files
  size_t before = cgmem::testing::allocation_count();
  for (int i = 0; i < 100; ++i) ASSERT_TRUE((*sampler)->tick(2 + i, fd));
  EXPECT_EQ(cgmem::testing::allocation_count() - before, 0u);
  ::close(fd);
}

// run_share allocates its chunk table once; the count must not grow with ops.
size_t allocations_for(testing::ThrottledTree& tree, uint64_t target, uint64_t churn) {
  auto counters = OwnCounters::open(tree.cgroup, false);
  int fd = ::open("/dev/null", O_WRONLY);
  size_t before = cgmem::testing::allocation_count();
  auto ops = run_share(WorkloadOptions{.target_bytes = target, .churn = churn},
                       Share{.target_bytes = target}, *counters, fd);
  size_t used = cgmem::testing::allocation_count() - before;
  ::close(fd);
  EXPECT_TRUE(ops);
  return used;
}

TEST(NoAllocation, WorkloadOps) {
  testing::ThrottledTree tree;
  size_t small = allocations_for(tree, 1 << 20, 2);
  size_t large = allocations_for(tree, 16 << 20, 200);
  EXPECT_EQ(small, large);
  EXPECT_LE(large, 1u);  // the chunk table
}

}  // namespace
}  // namespace cgmem::lab
