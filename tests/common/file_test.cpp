#include "common/file.h"
#include "common/staged_dir.h"

#include <gtest/gtest.h>
#include <fcntl.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "../support/temp_dir.h"

namespace cgmem {
namespace {

using testing::TempDir;

void spit(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

TEST(ReadFile, ReadsARegularFile) {
  TempDir tmp;
  spit(tmp.path() + "/spec", "name = 'x'\n");
  auto text = read_file(tmp.path() + "/spec", "the spec");
  ASSERT_TRUE(text) << text.error().message();
  EXPECT_EQ(*text, "name = 'x'\n");
}

TEST(ReadFile, RefusesAFifoWithoutBlocking) {
  TempDir tmp;
  std::string fifo = tmp.path() + "/fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto text = read_file(fifo, "the claim file");
  ASSERT_FALSE(text);
  EXPECT_EQ(text.error().message(), "the claim file is a FIFO: " + fifo + " (give the path of a regular file)");
}

TEST(ReadFile, RefusesDevicesAndDirectories) {
  auto zero = read_file("/dev/zero", "the compose file");
  ASSERT_FALSE(zero);
  EXPECT_EQ(zero.error().message(), "the compose file is a character device: /dev/zero (give the path of a regular file)");
  TempDir tmp;
  auto dir = read_file(tmp.path(), "the spec");
  ASSERT_FALSE(dir);
  EXPECT_EQ(dir.error().message(), "the spec is a directory: " + tmp.path() + " (give the path of a regular file)");
}

TEST(ReadFile, RefusesAFileOverTheBound) {
  TempDir tmp;
  spit(tmp.path() + "/big", std::string(100, 'x'));
  EXPECT_TRUE(read_file(tmp.path() + "/big", "the spec", 100));
  auto text = read_file(tmp.path() + "/big", "the spec", 99);
  ASSERT_FALSE(text);
  EXPECT_EQ(text.error().message(), "the spec is larger than 99 bytes: " + tmp.path() + "/big (is this the right file?)");
}

TEST(ReadFile, MissingFileSaysSo) {
  auto text = read_file("/nonexistent/spec.toml", "the spec");
  ASSERT_FALSE(text);
  EXPECT_EQ(text.error().message(), "open the spec: /nonexistent/spec.toml: No such file or directory");
}

TEST(OpenTreeFile, OpensOnlyARegularFileNeverThroughALink) {
  TempDir tmp;
  spit(tmp.path() + "/memory.current", "4096\n");
  ASSERT_EQ(::mkfifo((tmp.path() + "/memory.stat").c_str(), 0600), 0);
  std::filesystem::create_symlink("/dev/zero", tmp.path() + "/memory.events");
  std::filesystem::create_directory(tmp.path() + "/memory.max");
  Fd dir(::open(tmp.path().c_str(), O_RDONLY | O_DIRECTORY));
  EXPECT_TRUE(open_tree_file(dir.get(), "memory.current").valid());
  unsigned mode = 0;
  EXPECT_FALSE(open_tree_file(dir.get(), "memory.stat", &mode).valid());  // and does not block
  EXPECT_EQ(errno, EINVAL);
  EXPECT_EQ(file_kind(mode), "a FIFO");
  EXPECT_FALSE(open_tree_file(dir.get(), "memory.events").valid());
  EXPECT_EQ(errno, ELOOP);
  EXPECT_FALSE(open_tree_file(dir.get(), "memory.max", &mode).valid());
  EXPECT_EQ(file_kind(mode), "a directory");
}

TEST(OpenTreeFileBeneath, OpensAPathBelowNeverThroughALinkNorOut) {
  TempDir tmp;
  std::filesystem::create_directories(tmp.path() + "/root/a/b");
  std::filesystem::create_directories(tmp.path() + "/elsewhere");
  spit(tmp.path() + "/root/a/b/memory.current", "4096\n");
  spit(tmp.path() + "/elsewhere/memory.current", "1\n");
  ASSERT_EQ(::mkfifo((tmp.path() + "/root/a/b/memory.stat").c_str(), 0600), 0);
  std::filesystem::create_directory_symlink(tmp.path() + "/elsewhere", tmp.path() + "/root/a/link");
  std::filesystem::create_symlink(tmp.path() + "/elsewhere/memory.current", tmp.path() + "/root/a/b/memory.max");
  Fd root(::open((tmp.path() + "/root").c_str(), O_RDONLY | O_DIRECTORY));
  EXPECT_TRUE(open_tree_file_beneath(root.get(), "a/b/memory.current").valid());
  EXPECT_TRUE(open_tree_file_beneath(root.get(), "/a/b/memory.current").valid());
  unsigned mode = 0;
  EXPECT_FALSE(open_tree_file_beneath(root.get(), "a/b/memory.stat", false, &mode).valid());  // and does not block
  EXPECT_EQ(file_kind(mode), "a FIFO");
  EXPECT_FALSE(open_tree_file_beneath(root.get(), "a/link/memory.current").valid());
  EXPECT_FALSE(open_tree_file_beneath(root.get(), "a/b/memory.max").valid());
  EXPECT_FALSE(open_tree_file_beneath(root.get(), "../elsewhere/memory.current").valid());
  EXPECT_FALSE(open_tree_file_beneath(root.get(), "a/b").valid());  // a directory
  EXPECT_FALSE(open_tree_file_beneath(root.get(), "").valid());
  EXPECT_FALSE(open_tree_file_beneath(root.get(), std::string(5000, 'a')).valid());
}

TEST(OpenDirBeneath, StaysBelowItsDirectory) {
  TempDir tmp;
  std::filesystem::create_directories(tmp.path() + "/out/a/b");
  std::filesystem::create_directories(tmp.path() + "/elsewhere");
  std::filesystem::create_directory_symlink(tmp.path() + "/elsewhere", tmp.path() + "/out/link");
  Fd out(::open((tmp.path() + "/out").c_str(), O_RDONLY | O_DIRECTORY));
  EXPECT_TRUE(open_dir_beneath(out.get(), "/a/b").valid());
  EXPECT_TRUE(open_dir_beneath(out.get(), "a//b/").valid());
  EXPECT_TRUE(open_dir_beneath(out.get(), "").valid());
  EXPECT_FALSE(open_dir_beneath(out.get(), "link").valid());
  EXPECT_EQ(errno, ENOTDIR);  // O_DIRECTORY|O_NOFOLLOW on a symlink
  EXPECT_FALSE(open_dir_beneath(out.get(), "link/x", true).valid());
  EXPECT_FALSE(open_dir_beneath(out.get(), "a/../../elsewhere").valid());
  EXPECT_EQ(errno, EINVAL);
  EXPECT_FALSE(open_dir_beneath(out.get(), "../escaped", true).valid());
  EXPECT_FALSE(std::filesystem::exists(tmp.path() + "/escaped"));
  EXPECT_TRUE(open_dir_beneath(out.get(), "0/proc/158", true).valid());
  EXPECT_TRUE(std::filesystem::is_directory(tmp.path() + "/out/0/proc/158"));
  EXPECT_TRUE(std::filesystem::is_empty(tmp.path() + "/elsewhere"));
}

TEST(WriteFileAtomic, ReplacesWholeAndLeavesNoTemporary) {
  TempDir tmp;
  std::string path = tmp.path() + "/batch.json";
  spit(path, "old and longer\n");
  ASSERT_TRUE(write_file_atomic(path, "new\n"));
  std::ifstream in(path);
  std::string text((std::istreambuf_iterator<char>(in)), {});
  EXPECT_EQ(text, "new\n");
  size_t entries = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(tmp.path())) ++entries;
  EXPECT_EQ(entries, 1u);
}

TEST(WriteFileAtomic, FailureLeavesTheOldFile) {
  TempDir tmp;
  auto missing_dir = write_file_atomic(tmp.path() + "/no/such/dir/x", "y");
  ASSERT_FALSE(missing_dir);
  EXPECT_EQ(missing_dir.error().err, ENOENT);
}

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), {});
}

// Killed before commit (here: dropped), the old result stays as it was.
TEST(StagedDir, UncommittedLeavesTheTargetAndNoStaging) {
  TempDir tmp;
  std::string target = tmp.path() + "/out";
  std::filesystem::create_directory(target);
  spit(target + "/.mark", "");
  spit(target + "/a.md", "old");
  {
    auto staged = StagedDir::begin(target, ".mark", {});
    ASSERT_TRUE(staged) << staged.error().message();
    spit(staged->path() + "/a.md", "half-written");
  }
  EXPECT_EQ(slurp(target + "/a.md"), "old");
  size_t entries = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(tmp.path())) ++entries;
  EXPECT_EQ(entries, 1u);
}

TEST(StagedDir, CommitSwapsAndRemovesTheOld) {
  TempDir tmp;
  std::string target = tmp.path() + "/out";
  auto first = StagedDir::begin(target, ".mark", {});
  ASSERT_TRUE(first);
  spit(first->path() + "/a.md", "one");
  spit(first->path() + "/only-in-one", "x");
  ASSERT_TRUE(first->commit());
  auto second = StagedDir::begin(target, ".mark", {});
  ASSERT_TRUE(second);
  spit(second->path() + "/a.md", "two");
  ASSERT_TRUE(second->commit());
  EXPECT_EQ(slurp(target + "/a.md"), "two");
  EXPECT_FALSE(std::filesystem::exists(target + "/only-in-one"));
  EXPECT_TRUE(std::filesystem::exists(target + "/.mark"));
}

TEST(StagedDir, RemovesTheStagingOfAWriterThatDied) {
  TempDir tmp;
  std::string target = tmp.path() + "/out";
  // pid 2^22 + 1 is above the kernel's pid_max ceiling: no such process.
  std::string stale = tmp.path() + "/.out.tmp-4194305";
  std::filesystem::create_directory(stale);
  spit(stale + "/.mark", "written by cgmem");
  // The same name without the marker is not cgmem's: kept.
  std::string users = tmp.path() + "/.out.tmp-4194306";
  std::filesystem::create_directory(users);
  auto staged = StagedDir::begin(target, ".mark", {});
  ASSERT_TRUE(staged);
  EXPECT_FALSE(std::filesystem::exists(stale));
  EXPECT_TRUE(std::filesystem::exists(users));
  EXPECT_TRUE(std::filesystem::exists(staged->path() + "/.mark"));  // from the start, for the next writer to see
}

TEST(StagedDir, RefusesADirectoryOfTheUsers) {
  TempDir tmp;
  spit(tmp.path() + "/notes.txt", "mine");
  auto staged = StagedDir::begin(tmp.path(), ".mark", {"a.md"});
  ASSERT_FALSE(staged);
  EXPECT_EQ(slurp(tmp.path() + "/notes.txt"), "mine");
  auto file = StagedDir::begin(tmp.path() + "/notes.txt", ".mark", {});
  ASSERT_FALSE(file);  // a file in the target's place is not replaced either
}

TEST(Fd, ClosesOnScopeExitAndMoves) {
  int raw = -1;
  {
    Fd a(::open("/dev/null", O_RDONLY | O_CLOEXEC));
    raw = a.get();
    ASSERT_GE(raw, 0);
    Fd b = std::move(a);
    EXPECT_FALSE(a.valid());
    EXPECT_EQ(b.get(), raw);
  }
  EXPECT_EQ(::fcntl(raw, F_GETFD), -1);  // closed
}

}  // namespace
}  // namespace cgmem
