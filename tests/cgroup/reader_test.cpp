// Whole-file reads, the preopened reader, and "vanished is no data".
#include <gtest/gtest.h>

#include <fcntl.h>

#include <sys/stat.h>

#include <array>
#include <filesystem>
#include <fstream>

#include "cgroup/reader.h"
#include "support/fixture.h"

namespace cgmem::cgroup {
namespace {

using testing::fixture_path;
using testing::TempDir;

TEST(ReadText, ReadsAWholeFile) {
  auto text = read_text(fixture_path("cgroup-v2-6.12-throttled/lab-run1/memory.high"));
  ASSERT_TRUE(text.has_value());
  EXPECT_EQ(*text, "30195712\n");
}

TEST(ReadText, MissingFileIsVanishedWordForWord) {
  auto text = read_text("/nonexistent/memory.high");
  ASSERT_FALSE(text.has_value());
  EXPECT_TRUE(text.error().vanished());
  EXPECT_EQ(text.error().message(), "open: /nonexistent/memory.high: No such file or directory");
}

TEST(ReadText, AVanishedFileIsVanishedOtherErrorsAreNot) {
  auto gone = read_text("/nonexistent/memory.high");
  ASSERT_FALSE(gone.has_value());
  EXPECT_TRUE(gone.error().vanished());
  auto here = read_text(fixture_path("cgroup-v2-6.12-throttled/lab-run1/memory.max"));
  ASSERT_TRUE(here.has_value());
  EXPECT_EQ(*here, "67108864\n");
  auto directory = read_text(fixture_path("cgroup-v2-6.12-throttled"));
  ASSERT_FALSE(directory.has_value());
  EXPECT_EQ(directory.error().message(),
            "read " + fixture_path("cgroup-v2-6.12-throttled") + ": it is a directory, not a regular file");
  EXPECT_FALSE(directory.error().vanished());
}

// A tree given with --root or saved elsewhere may hold anything in a control file's place.
TEST(ReadText, AFifoADeviceOrALinkIsRefusedWithoutBlocking) {
  TempDir tmp;
  std::string fifo = tmp.path() + "/memory.stat";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto text = read_text(fifo);
  ASSERT_FALSE(text.has_value());
  EXPECT_EQ(text.error().message(), "read " + fifo + ": it is a FIFO, not a regular file");
  EXPECT_EQ(read_text("/dev/zero").error().message(), "read /dev/zero: it is a character device, not a regular file");
  std::filesystem::create_symlink("/dev/zero", tmp.path() + "/memory.current");
  Fd dir(::open(tmp.path().c_str(), O_RDONLY | O_DIRECTORY));
  auto link = read_text_at(dir.get(), "memory.current", "memory.current");
  ASSERT_FALSE(link.has_value());
  EXPECT_EQ(link.error().err, ELOOP);  // below a directory fd a symlink is never followed
  EXPECT_FALSE(FileReader::open(fifo).has_value());
}

TEST(ReadText, AFileOverTheBoundSaysSo) {
  TempDir tmp;
  std::string path = tmp.path() + "/cgroup.procs";
  std::ofstream(path) << std::string(5000, '1');
  EXPECT_TRUE(read_text(path, 5000).has_value());
  auto text = read_text(path, 4999);
  ASSERT_FALSE(text.has_value());
  EXPECT_EQ(text.error().message(), "read " + path + ": it is larger than 4999 bytes, more than a control file holds");
}

TEST(FileReader, RereadsTheFileEachTime) {
  TempDir dir;
  std::string path = dir.path() + "/memory.current";
  testing::spit(path, "4096\n");
  auto reader = FileReader::open(path);
  ASSERT_TRUE(reader.has_value());
  std::array<char, 64> buffer;
  EXPECT_EQ(reader->read(buffer).value(), "4096\n");
  testing::spit(path, "8192\n");
  EXPECT_EQ(reader->read(buffer).value(), "8192\n");
  EXPECT_EQ(reader->read_raw(buffer), "8192\n");
}

TEST(FileReader, OpensRelativeToADirectoryFd) {
  int dir = ::open(fixture_path("cgroup-v2-6.12-throttled/lab-run1").c_str(), O_RDONLY | O_DIRECTORY);
  ASSERT_GE(dir, 0);
  auto reader = FileReader::open(dir, "memory.events", "lab-run1/memory.events");
  ::close(dir);  // the reader keeps its own fd
  ASSERT_TRUE(reader.has_value());
  std::array<char, 256> buffer;
  auto text = reader->read(buffer);
  ASSERT_TRUE(text.has_value());
  EXPECT_TRUE(text->starts_with("low 0\nhigh 309\n"));
  EXPECT_EQ(reader->path(), "lab-run1/memory.events");
}

TEST(FileReader, AFullBufferIsAnErrorWordForWord) {
  auto reader = FileReader::open(fixture_path("cgroup-v2-6.12-throttled/lab-run1/memory.events"));
  ASSERT_TRUE(reader.has_value());
  std::array<char, 16> buffer;
  auto text = reader->read(buffer);
  ASSERT_FALSE(text.has_value());
  EXPECT_EQ(text.error().message(),
            "read " + reader->path() +
                ": the file fills the whole 16-byte buffer and may be longer; use a larger buffer");
  errno = 0;
  EXPECT_EQ(reader->read_raw(buffer), std::nullopt);
  EXPECT_EQ(errno, E2BIG);
}

TEST(FileReader, OpenMissingIsVanished) {
  auto reader = FileReader::open("/nonexistent/cgroup.events");
  ASSERT_FALSE(reader.has_value());
  EXPECT_TRUE(reader.error().vanished());
}

TEST(FileReader, MovedFromReaderOwnsNothing) {
  auto reader = FileReader::open(fixture_path("cgroup-v2-6.12-throttled/lab-run1/memory.max"));
  ASSERT_TRUE(reader.has_value());
  FileReader moved = std::move(*reader);
  EXPECT_EQ(reader->fd(), -1);
  std::array<char, 32> buffer;
  EXPECT_EQ(moved.read(buffer).value(), "67108864\n");
}

TEST(WriteText, WritesAnExistingFileOnly) {
  TempDir dir;
  testing::spit(dir.path() + "/memory.max", "max\n");
  int fd = ::open(dir.path().c_str(), O_RDONLY | O_DIRECTORY);
  EXPECT_EQ(write_text_at(fd, "memory.max", "1024"), 0);
  EXPECT_EQ(write_text_at(fd, "memory.high", "1024"), ENOENT);
  ::close(fd);
  EXPECT_EQ(testing::slurp(dir.path() + "/memory.max"), "1024");
}

}  // namespace
}  // namespace cgmem::cgroup
