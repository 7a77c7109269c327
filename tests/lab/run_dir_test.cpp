#include "lab/run_dir.h"

#include <gtest/gtest.h>
#include <fcntl.h>
#include <unistd.h>

#include <filesystem>

#include "support/fixture.h"
#include "lab/ops_tail.h"
#include "common/file.h"
#include "run_format/run_format.h"

namespace cgmem::lab {
namespace {

using testing::slurp;
using testing::TempDir;

TEST(RunDir, CreatesWritesAtomicallyAndAppends) {
  TempDir tmp;
  auto dir = RunDir::create(tmp.path() + "/runs/over-1");
  ASSERT_TRUE(dir) << dir.error().message();
  ASSERT_TRUE(dir->write_json(run_format::kMetaFile, {{"schema", 1}, {"name", "over"}}));
  EXPECT_EQ(slurp(dir->file(run_format::kMetaFile)), "{\n  \"name\": \"over\",\n  \"schema\": 1\n}\n");
  size_t entries = 0;  // no temporary left beside it
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir->path())) ++entries;
  EXPECT_EQ(entries, 1u);
  auto fd = dir->open_append(run_format::kOpsFile);
  ASSERT_TRUE(fd);
  ASSERT_TRUE(write_all(fd->get(), "{\"op\":0,\"lat_ns\":5}\n"));
  ASSERT_TRUE(write_all(fd->get(), "{\"op\":1,\"lat_ns\":9}\n"));
  fd->reset();
  EXPECT_EQ(slurp(dir->file(run_format::kOpsFile)), "{\"op\":0,\"lat_ns\":5}\n{\"op\":1,\"lat_ns\":9}\n");
}

TEST(RunDir, RefusesANonEmptyDirectory) {
  TempDir tmp;
  testing::spit(tmp.path() + "/old", "x");
  auto dir = RunDir::create(tmp.path());
  ASSERT_FALSE(dir);
  EXPECT_EQ(dir.error().message(), "the run directory exists and is not empty: " + tmp.path() +
                                       " (give --out a new directory, or remove the old run)");
  EXPECT_TRUE(RunDir::create(tmp.path() + "/fresh"));
  EXPECT_TRUE(RunDir::create(tmp.path() + "/fresh"));  // empty: fine
}

TEST(RunDir, DefaultPathAndClock) {
  EXPECT_EQ(default_run_path("/w", "over", 1795992027), "/w/runs/over-20261129T224027Z");
  EXPECT_EQ(iso_utc(1795992027), "2026-11-29T22:40:27Z");
}

TEST(OpsTail, ReadsWholeLinesOnlyAndFindsTheSlowest) {
  TempDir tmp;
  std::string path = tmp.path() + "/ops.jsonl";
  testing::spit(path, "{\"op\":0,\"lat_ns\":5}\n{\"op\":1,\"lat_ns\":900}\n{\"op\":2,\"la");
  int fd = ::open(path.c_str(), O_RDONLY);
  OpsTail tail(fd);
  auto first = tail.scan();
  EXPECT_EQ(first.lines, 2u);
  EXPECT_EQ(first.slowest_lat_ns, 900u);
  testing::spit(path, "{\"op\":0,\"lat_ns\":5}\n{\"op\":1,\"lat_ns\":900}\n{\"op\":2,\"lat_ns\":7}\n");
  auto second = tail.scan();
  EXPECT_EQ(second.lines, 1u);
  EXPECT_EQ(second.slowest_lat_ns, 7u);
  EXPECT_EQ(tail.total_lines(), 3u);
  ::close(fd);
}

}  // namespace
}  // namespace cgmem::lab
