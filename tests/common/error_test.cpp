#include "common/error.h"

#include <gtest/gtest.h>

namespace cgmem {
namespace {

TEST(Error, MessageHasEveryPart) {
  Error e{"write 64M to memory.max", EACCES, "/sys/fs/cgroup/lab/memory.max", "run as root"};
  EXPECT_EQ(e.message(),
            "write 64M to memory.max: /sys/fs/cgroup/lab/memory.max: Permission denied (run as root)");
}

TEST(Error, EmptyPartsLeftOut) {
  EXPECT_EQ(Error{"parse memory.events"}.message(), "parse memory.events");
}

// A message quotes what a person typed: a pattern's backslash stays one,
// while a control byte from a hostile name is shown as an escape.
TEST(Error, ControlBytesAreEscapedBackslashesKept) {
  Error e{.what = "--match 'system\\.slice\x1b[2J\n' is bad", .hint = "e.g. 'a\\d'"};
  EXPECT_EQ(e.message(), "--match 'system\\.slice\\x1b[2J\\n' is bad (e.g. 'a\\d')");
}

TEST(Error, VanishedIsEnoentEnodevEsrch) {
  EXPECT_TRUE((Error{"x", ENOENT}.vanished()));
  EXPECT_TRUE((Error{"x", ENODEV}.vanished()));
  EXPECT_TRUE((Error{"x", ESRCH}.vanished()));
  EXPECT_FALSE((Error{"x", EACCES}.vanished()));
  EXPECT_FALSE(Error{"x"}.vanished());
}

TEST(Error, SysErrorTakesErrno) {
  errno = EBUSY;
  auto u = sys_error("remove cgroup", "/x");
  EXPECT_EQ(u.error().err, EBUSY);
}

}  // namespace
}  // namespace cgmem
