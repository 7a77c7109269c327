// `cgmem vm --tree`: which directories may come in, the walk that follows
// symlinks (and stops at loops and dangling ones), and the libraries the
// ELF files of a tree need from outside it, on real files of this machine.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "common/file.h"
#include "vm/program_files.h"
#include "support/temp_dir.h"
#include "vm/tree_files.h"

namespace fs = std::filesystem;
using namespace cgmem::vm;

namespace {

// Not under /tmp, which is one of the guest's own dirs and refused as a tree.
struct TreeDir : cgmem::testing::TempDir {
  TreeDir() : TempDir("/var/tmp") {}
};

std::string error_of(const std::vector<std::string>& trees) {
  auto plan = plan_trees(trees, loader_dirs());
  return plan ? "" : plan.error().message();
}

TEST(TreeFiles, TheGuestsOwnDirsAndBadPathsAreRefused) {
  EXPECT_NE(error_of({"usr/lib/jvm"}).find("give an absolute path"), std::string::npos);
  EXPECT_NE(error_of({"/"}).find("the guest's own files are in /bin"), std::string::npos);
  EXPECT_NE(error_of({"/usr"}).find("the guest's own files are in /usr/local/bin"), std::string::npos);
  EXPECT_NE(error_of({"/lib/x86_64-linux-gnu"}).find("the guest's own files are in /lib"), std::string::npos);
  EXPECT_NE(error_of({"/etc/java-17-openjdk"}).find("the guest's own files are in /etc"), std::string::npos);
  EXPECT_NE(error_of({"/opt/a dir"}).find("white space"), std::string::npos);
  EXPECT_NE(error_of({"/opt/cgmem-no-such-dir"}).find("not a directory"), std::string::npos);
}

TEST(TreeFiles, SymlinksAreFollowedLoopsAndDanglingOnesLeftOut) {
  TreeDir dir;
  const std::string& t = dir.path();
  fs::create_directories(t + "/lib/sub");
  ASSERT_TRUE(cgmem::write_file(t + "/lib/sub/data", "bytes"));
  ASSERT_TRUE(cgmem::write_file(t + "/outside.cfg", "cfg"));
  fs::create_symlink(t + "/outside.cfg", t + "/lib/jvm.cfg");  // out of the tree, as a JDK links into /etc
  fs::create_symlink("sub", t + "/lib/alias");                  // a directory by another name
  fs::create_symlink("..", t + "/lib/sub/up");                   // back up: a loop
  fs::create_symlink("/nonexistent/src.zip", t + "/lib/src.zip");
  std::vector<std::string> seen;
  uint64_t left_out = 0;
  auto walked = walk_tree(t + "/lib", [&](const std::string& host, const std::string& rel) -> cgmem::Result<void> {
    seen.push_back(rel + "=" + cgmem::read_file_or_empty(host));
    return {};
  }, left_out);
  ASSERT_TRUE(walked) << walked.error().message();
  std::sort(seen.begin(), seen.end());
  EXPECT_EQ(seen, (std::vector<std::string>{"alias/data=bytes", "jvm.cfg=cfg", "sub/data=bytes"}));
  EXPECT_EQ(left_out, 3u);  // sub/up, alias/up and src.zip
}

TEST(TreeFiles, AnElfInATreeBringsWhatItNeedsFromOutside) {
  TreeDir dir;
  // A copy of this test binary (dynamic: libstdc++, libc) and a library
  // named as one of its needs: that one is the tree's, not brought.
  fs::create_directories(dir.path() + "/bin");
  fs::copy_file("/proc/self/exe", dir.path() + "/bin/prog");
  fs::copy_file("/proc/self/exe", dir.path() + "/bin/libgcc_s.so.1");
  auto plan = plan_trees({dir.path() + "/bin/"}, loader_dirs());
  ASSERT_TRUE(plan) << plan.error().message();
  EXPECT_EQ(plan->trees, std::vector<std::string>{dir.path() + "/bin"});
  EXPECT_EQ(plan->files, 2u);
  auto has = [&](const std::string& guest) {
    return std::any_of(plan->libraries.begin(), plan->libraries.end(), [&](const GuestFile& f) { return f.guest_path == guest; });
  };
  EXPECT_TRUE(has("lib64/ld-linux-x86-64.so.2"));
  EXPECT_TRUE(has("lib/x86_64-linux-gnu/libc.so.6"));
  EXPECT_TRUE(has("lib/x86_64-linux-gnu/libstdc++.so.6"));
  EXPECT_FALSE(has("lib/x86_64-linux-gnu/libgcc_s.so.1"));
  EXPECT_NE(links_manifest(*plan).find("/lib/x86_64-linux-gnu/libc.so.6 /vm/libs/libc.so.6\n"), std::string::npos);
  EXPECT_EQ(trees_manifest(*plan), dir.path() + "/bin\n");
  EXPECT_NE(error_of({dir.path(), dir.path() + "/bin"}).find("it overlaps"), std::string::npos);
}

}  // namespace
