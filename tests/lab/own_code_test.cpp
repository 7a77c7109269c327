// --own-code-size on a file of the test's own: the padded copy and the walk.
#include "lab/own_code.h"

#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "support/fixture.h"

namespace cgmem::lab {
namespace {

constexpr uint64_t kPage = 4096;

// A file of `pages` pages whose page i starts with byte i + 1.
std::string numbered(const std::string& path, uint64_t pages) {
  std::string bytes(pages * kPage, '\0');
  for (uint64_t i = 0; i < pages; ++i) bytes[i * kPage] = static_cast<char>(i + 1);
  std::ofstream(path, std::ios::binary) << bytes;
  return bytes;
}

TEST(OwnCode, CopyIsPaddedWithRepeatsOfTheBinaryAndDropped) {
  testing::TempDir tmp;
  std::string bytes = numbered(tmp.path() + "/bin", 3);
  ASSERT_TRUE(copy_padded(tmp.path() + "/bin", tmp.path() + "/copy", 7 * kPage + 100));
  EXPECT_EQ(testing::slurp(tmp.path() + "/copy"), bytes + bytes + bytes.substr(0, kPage + 100));
  auto cached = residency(tmp.path() + "/copy");
  ASSERT_TRUE(cached);
  EXPECT_EQ(cached->pages, 8u);
}

TEST(OwnCode, CopyIsTheBinaryWholeWhenTheSizeIsSmaller) {
  testing::TempDir tmp;
  std::string bytes = numbered(tmp.path() + "/bin", 3);
  ASSERT_TRUE(copy_padded(tmp.path() + "/bin", tmp.path() + "/copy", kPage));
  EXPECT_EQ(testing::slurp(tmp.path() + "/copy"), bytes);
}

TEST(OwnCode, AnExistingFileIsNeverOverwritten) {
  testing::TempDir tmp;
  numbered(tmp.path() + "/bin", 1);
  std::ofstream(tmp.path() + "/copy") << "someone's";
  auto copied = copy_padded(tmp.path() + "/bin", tmp.path() + "/copy", kPage);
  ASSERT_FALSE(copied);
  EXPECT_EQ(copied.error().err, EEXIST);
  EXPECT_EQ(testing::slurp(tmp.path() + "/copy"), "someone's");
}

TEST(OwnCode, WalkReadsOneByteOfEveryPageAndLeavesThemCached) {
  testing::TempDir tmp;
  numbered(tmp.path() + "/code", 5);
  auto code = CodeMap::map(tmp.path() + "/code");
  ASSERT_TRUE(code) << code.error().message();
  EXPECT_EQ(code->bytes(), 5 * kPage);
  EXPECT_EQ(code->walk(), 1u + 2 + 3 + 4 + 5);
  EXPECT_EQ(residency(tmp.path() + "/code")->cached, 5u);
}

TEST(OwnCode, MapSaysWhatFailed) {
  testing::TempDir tmp;
  std::ofstream(tmp.path() + "/empty");
  EXPECT_EQ(CodeMap::map(tmp.path() + "/empty").error().message(),
            "the own code to walk is empty: " + tmp.path() + "/empty");
}

}  // namespace
}  // namespace cgmem::lab
