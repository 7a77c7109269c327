#include "report/op_scan.h"

#include <gtest/gtest.h>

#include "report/jsonl.h"

namespace cgmem::report {
namespace {

TEST(ReportOpScan, ReadsEveryKeyOfTheFormatExample) {
  Op op;
  ASSERT_TRUE(scan_op_line(
      R"({"op":412,"phase":"churn","pid":311,"cpu":0,"t_ns":91237733821,"lat_ns":191800211,)"
      R"("held_bytes":243269632,"current_before":250875904,"current_after":250880000,)"
      R"("high_before":10438,"high_after":10455,"max_before":1,"max_after":2})",
      op));
  EXPECT_EQ(op.op, 412u);
  EXPECT_EQ(op.phase, Phase::kChurn);
  EXPECT_EQ(op.pid, 311);
  EXPECT_EQ(op.cpu, 0);
  EXPECT_EQ(op.t_ns, 91237733821);
  EXPECT_EQ(op.lat_ns, 191800211);
  EXPECT_EQ(op.held_bytes, 243269632u);
  EXPECT_EQ(op.current_before, 250875904u);
  EXPECT_EQ(op.current_after, 250880000u);
  EXPECT_EQ(op.high_before, 10438u);
  EXPECT_EQ(op.high_after, 10455u);
  EXPECT_EQ(op.max_before, 1u);
  EXPECT_EQ(op.max_after, 2u);
}

TEST(ReportOpScan, SkipsUnknownKeysOfAnyShape) {
  Op op;
  ASSERT_TRUE(scan_op_line(
      R"({ "note" : "a \"quoted\" } ]", "nested": {"a": [1, {"b": "}"}]}, "ok": true, )"
      R"("x": null, "f": -1.5e3, "lat_ns" : 7 , "phase":"own_high"})",
      op));
  EXPECT_EQ(op.lat_ns, 7);
  EXPECT_EQ(op.phase, Phase::kOwnHigh);
}

TEST(ReportOpScan, MissingKeysKeepTheirDefaults) {
  Op op;
  ASSERT_TRUE(scan_op_line(R"({"lat_ns":5})", op));
  EXPECT_EQ(op.lat_ns, 5);
  EXPECT_EQ(op.cpu, -1);
  EXPECT_EQ(op.phase, Phase::kOther);
  EXPECT_TRUE(scan_op_line("{}", op));
}

TEST(ReportOpScan, RejectsLinesThatAreNotOpObjects) {
  const char* bad[] = {
      "",                                  // empty
      "[1,2]",                             // not an object
      R"({"op":1,"lat_ns":)",              // cut short
      R"({"op":1,"lat_ns":12)",            // no closing brace
      R"({"op":-1})",                      // negative index
      R"({"lat_ns":1.5})",                 // fraction in an integer field
      R"({"lat_ns":"7"})",                 // string in an integer field
      R"({"op":99999999999})",             // out of range for an op index
      R"({"high_after":18446744073709551616})",  // above 2^64 - 1
      R"({"op":1} trailing)",              // garbage after the object
      R"({"op" 1})",                       // no colon
      R"({"op":1,})",                      // trailing comma
      R"({"phase":"gr\)",                  // escape at the very end
  };
  for (const char* line : bad) {
    Op op;
    EXPECT_FALSE(scan_op_line(line, op)) << line;
  }
}

TEST(ReportJsonl, CountsATruncatedLastLineAndBadLines) {
  std::string text = "{\"op\":1}\n\nnot json\n{\"op\":2}\n{\"op\":3,\"lat";
  std::vector<uint32_t> seen;
  auto counts = for_each_line(text, [&](std::string_view line) {
    Op op;
    if (!scan_op_line(line, op)) return false;
    seen.push_back(op.op);
    return true;
  });
  EXPECT_EQ(seen, (std::vector<uint32_t>{1, 2}));
  EXPECT_EQ(counts.read, 3u);
  EXPECT_EQ(counts.bad, 1u);
  EXPECT_EQ(counts.truncated_last, 1u);
}

TEST(ReportJsonl, AWholeLastLineIsNotTruncated) {
  auto counts = for_each_line("{}\n{}\n", [](std::string_view) { return true; });
  EXPECT_EQ(counts.read, 2u);
  EXPECT_EQ(counts.truncated_last, 0u);
}

}  // namespace
}  // namespace cgmem::report
