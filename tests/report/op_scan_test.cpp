#include "report/op_scan.h"

#include <gtest/gtest.h>

#include "lab/json_line.h"
#include "lab/op_line.h"
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
  EXPECT_EQ(op.phase, run_format::Phase::churn);
  EXPECT_EQ(op.t_ns, 91237733821);
  EXPECT_EQ(op.lat_ns, 191800211);
  EXPECT_EQ(op.current_before, 250875904u);
  EXPECT_EQ(op.current_after, 250880000u);
  EXPECT_EQ(op.high_before, 10438u);
  EXPECT_EQ(op.high_after, 10455u);
  EXPECT_EQ(op.max_after, 2u);
  EXPECT_EQ(op.pid, 311);
}

bool same(const Op& a, const Op& b) {
  return a.t_ns == b.t_ns && a.lat_ns == b.lat_ns && a.current_before == b.current_before &&
         a.current_after == b.current_after && a.high_before == b.high_before && a.high_after == b.high_after &&
         a.max_after == b.max_after && a.phase == b.phase && a.pid == b.pid;
}

// Lines in the lab's exact shape take the scanner's fast path; the same
// lines with spaces added, or keys moved, take the general one. Both must
// read the same op, and refuse the same bad lines.
TEST(ReportOpScan, LabShapeAndGeneralPathAgree) {
  const std::string lab =
      R"({"op":7,"phase":"own_high","pid":9,"cpu":1,"t_ns":-5,"lat_ns":18446744073,"held_bytes":1,)"
      R"("current_before":18446744073709551615,"current_after":0,"high_before":17,"high_after":34,)"
      R"("max_before":2,"max_after":3})";
  Op fast, general, moved;
  ASSERT_TRUE(scan_op_line(lab, fast));
  std::string spaced;
  for (char c : lab) {
    spaced += c;
    if (c == ',' || c == ':') spaced += ' ';
  }
  ASSERT_TRUE(scan_op_line(spaced, general));
  EXPECT_TRUE(same(fast, general));
  EXPECT_EQ(fast.current_before, UINT64_MAX);
  EXPECT_EQ(fast.t_ns, -5);
  EXPECT_EQ(fast.phase, run_format::Phase::own_high);
  EXPECT_EQ(fast.pid, 9);
  std::string reordered = R"({"max_after":3,)" + lab.substr(1, lab.size() - 16) + "}";
  ASSERT_TRUE(scan_op_line(reordered, moved)) << reordered;
  EXPECT_TRUE(same(fast, moved));
  Op extra;  // the lab's shape and one key more: the general path reads it
  ASSERT_TRUE(scan_op_line(lab.substr(0, lab.size() - 1) + R"(,"note":"x"})", extra));
  EXPECT_TRUE(same(fast, extra));
  // The lab's shape with one bad value, kept or not: refused either way.
  for (auto [from, to] : {std::pair{R"("op":7)", R"("op":-7)"}, {R"("cpu":1)", R"("cpu":1.0)"},
                          {R"("lat_ns":18446744073)", R"("lat_ns":"1")"}, {R"("max_after":3})", R"("max_after":3} x)"}}) {
    std::string bad = lab;
    bad.replace(bad.find(from), std::string_view(from).size(), to);
    Op op;
    EXPECT_FALSE(scan_op_line(bad, op)) << bad;
  }
}

// The lab's own writer produces the shape of the fast path.
TEST(ReportOpScan, TheLabsLinesTakeTheFastPath) {
  lab::OpRecord r{.op = 3, .phase = run_format::Phase::churn, .pid = 42, .cpu = 1, .t_ns = 5000, .lat_ns = 250000,
                  .held_bytes = 1 << 20, .before = {.current = 100, .high = 17, .max = 0},
                  .after = {.current = 200, .high = 51, .max = 1}};
  char storage[512];
  lab::JsonLine line(storage);
  lab::format_op_line(r, line);
  ASSERT_TRUE(line.ok());
  std::string_view text = line.view();
  ASSERT_TRUE(text.ends_with('\n'));
  text.remove_suffix(1);
  Op op;
  ASSERT_TRUE(scan_lab_op_line(text, op)) << text;
  EXPECT_EQ(op.t_ns, 5000);
  EXPECT_EQ(op.lat_ns, 250000);
  EXPECT_EQ(op.current_before, 100u);
  EXPECT_EQ(op.current_after, 200u);
  EXPECT_EQ(op.high_after - op.high_before, 34u);
  EXPECT_EQ(op.max_after, 1u);
  EXPECT_EQ(op.phase, run_format::Phase::churn);
  EXPECT_FALSE(scan_lab_op_line(R"({"lat_ns":5})", op));  // valid, but not the lab's shape
}

TEST(ReportOpScan, SkipsUnknownKeysOfAnyShape) {
  Op op;
  ASSERT_TRUE(scan_op_line(
      R"({ "note" : "a \"quoted\" } ]", "nested": {"a": [1, {"b": "}"}]}, "ok": true, )"
      R"("x": null, "f": -1.5e3, "lat_ns" : 7 , "phase":"own_high", "op": 1, "t_ns": 2})",
      op));
  EXPECT_EQ(op.lat_ns, 7);
  EXPECT_EQ(op.phase, run_format::Phase::own_high);
}

TEST(ReportOpScan, MissingKeysKeepTheirDefaults) {
  Op op;
  ASSERT_TRUE(scan_op_line(R"({"op":0,"t_ns":9,"lat_ns":5})", op));
  EXPECT_EQ(op.lat_ns, 5);
  EXPECT_EQ(op.t_ns, 9);
  EXPECT_EQ(op.current_after, 0u);
  EXPECT_EQ(op.phase, run_format::Phase::other);
}

// An op line without its index, start or latency, or with a negative
// latency, is not an op ("{}" must not count as one).
TEST(ReportOpScan, AnOpNeedsItsIndexStartAndLatency) {
  const char* bad[] = {"{}", R"({"lat_ns":5})", R"({"op":1,"t_ns":2})", R"({"op":1,"lat_ns":5})",
                       R"({"op":1,"t_ns":2,"lat_ns":-5})"};
  for (const char* line : bad) {
    Op op;
    EXPECT_FALSE(scan_op_line(line, op)) << line;
  }
  std::string lab = R"({"op":0,"phase":"grow","pid":1,"cpu":0,"t_ns":1,"lat_ns":-2,"held_bytes":0,)"
                    R"("current_before":0,"current_after":0,"high_before":0,"high_after":0,"max_before":0,"max_after":0})";
  Op fast;
  EXPECT_TRUE(scan_lab_op_line(lab, fast));  // the lab's shape ...
  EXPECT_FALSE(scan_op_line(lab, fast));      // ... but not a valid op
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
      R"({"pid":"311"})",                  // a key the report does not keep is still checked
      R"({"cpu":70000})",                  // out of range for a CPU number
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
  std::string text =
      "{\"op\":0,\"t_ns\":1,\"lat_ns\":0}\n\nnot json\n{\"op\":1,\"t_ns\":2,\"lat_ns\":0}\n{\"op\":2,\"t_ns\":3,\"lat";
  std::vector<int64_t> seen;
  auto counts = for_each_line(text, [&](std::string_view line) {
    Op op;
    if (!scan_op_line(line, op)) return false;
    seen.push_back(op.t_ns);
    return true;
  });
  EXPECT_EQ(seen, (std::vector<int64_t>{1, 2}));
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
