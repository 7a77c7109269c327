// ops.jsonl read in pieces on several threads gives what one sequential
// read gives: the same ops in the same order and the same line counts.
#include "report/read_ops.h"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include "report/jsonl.h"
#include "report/op_scan.h"

namespace cgmem::report {
namespace {

// 200 op lines, with a blank line, two bad lines and, if asked, a last line
// cut short; the ops' t_ns count up from 0.
std::string ops_text(bool truncated) {
  std::string text;
  for (int i = 0; i < 200; ++i) {
    text += fmt::format(R"({{"op":{0},"phase":"grow","pid":1,"cpu":0,"t_ns":{0},"lat_ns":5,"held_bytes":0,)"
                        R"("current_before":0,"current_after":{1},"high_before":0,"high_after":0,"max_before":0,)"
                        R"("max_after":0}})"
                        "\n",
                        i, i * 4096);
    if (i == 50) text += "\n";
    if (i == 120) text += "not json\n{\"lat_ns\":1.5}\n";
  }
  if (truncated) text += R"({"op":200,"t_ns")";
  return text;
}

std::vector<int64_t> times(const OpList& ops) {
  std::vector<int64_t> out;
  for (const Op& op : ops) out.push_back(op.t_ns);
  return out;
}

TEST(ReportReadOps, PiecesGiveWhatOneSequentialReadGives) {
  for (bool truncated : {false, true}) {
    std::string text = ops_text(truncated);
    std::vector<Op> expected;
    LineCounts want = for_each_line(text, [&](std::string_view line) {
      Op op;
      if (!scan_op_line(line, op)) return false;
      expected.push_back(op);
      return true;
    });
    ASSERT_EQ(expected.size(), 200u);
    for (unsigned threads : {1u, 2u, 3u, 4u}) {
      // Pieces of at least 1 KiB: a cut lands in the middle of most lines.
      OpList ops;
      LineCounts got = scan_ops(text, ops, threads, 1024);
      SCOPED_TRACE(fmt::format("threads {} truncated {}", threads, truncated));
      EXPECT_EQ(got.read, want.read);
      EXPECT_EQ(got.bad, 2u);
      EXPECT_EQ(got.truncated_last, truncated ? 1u : 0u);
      ASSERT_EQ(ops.size(), expected.size());
      std::vector<int64_t> t = times(ops);
      for (size_t i = 0; i < t.size(); ++i) ASSERT_EQ(t[i], static_cast<int64_t>(i));
      EXPECT_EQ(ops.back().current_after, 199u * 4096);
      EXPECT_EQ(ops[120].t_ns, 120);
    }
  }
}

TEST(ReportReadOps, EmptyAndTinyTexts) {
  OpList ops;
  LineCounts c = scan_ops("", ops, 4, 1);
  EXPECT_EQ(c.read, 0u);
  EXPECT_TRUE(ops.empty());
  c = scan_ops("{\"op\":0,\"t_ns\":0,\"lat_ns\":0}\n", ops, 4, 1);
  EXPECT_EQ(c.read, 1u);
  EXPECT_EQ(ops.size(), 1u);
  c = scan_ops("\n\n\n", ops, 4, 1);  // only newlines: every piece is blank lines
  EXPECT_EQ(c.read, 0u);
  EXPECT_EQ(ops.size(), 1u);  // appended to what was there
}

TEST(ReportOpList, IteratesAcrossPiecesSkippingEmptyOnes) {
  OpList ops;
  EXPECT_EQ(ops.begin(), ops.end());
  ops.append({});
  ops.append({Op{.t_ns = 1}, Op{.t_ns = 2}});
  ops.append({});
  ops.append({Op{.t_ns = 3}});
  ops.push_back(Op{.t_ns = 4});
  ops.append({});
  EXPECT_EQ(ops.size(), 4u);
  EXPECT_EQ(times(ops), (std::vector<int64_t>{1, 2, 3, 4}));
  EXPECT_EQ(ops[0].t_ns, 1);
  EXPECT_EQ(ops[2].t_ns, 3);
  EXPECT_EQ(ops.back().t_ns, 4);
  EXPECT_EQ(std::distance(ops.begin(), ops.end()), 4);
}

}  // namespace
}  // namespace cgmem::report
