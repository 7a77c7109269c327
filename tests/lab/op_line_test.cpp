#include "lab/op_line.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "lab/json_line.h"

namespace cgmem::lab {
namespace {

TEST(OpLine, FormatsEveryKeyInOrder) {
  OpRecord r{.op = 412, .phase = run_format::Phase::churn, .pid = 311, .cpu = 0, .t_ns = 91237733821,
             .lat_ns = 191800211, .held_bytes = 243269632,
             .before = {.current = 250875904, .high = 10438, .max = 0},
             .after = {.current = 250875904, .high = 10455, .max = 0}};
  char storage[512];
  JsonLine line(storage);
  format_op_line(r, line);
  ASSERT_TRUE(line.ok());
  EXPECT_EQ(line.view(),
            "{\"op\":412,\"phase\":\"churn\",\"pid\":311,\"cpu\":0,\"t_ns\":91237733821,"
            "\"lat_ns\":191800211,\"held_bytes\":243269632,\"current_before\":250875904,"
            "\"current_after\":250875904,\"high_before\":10438,\"high_after\":10455,"
            "\"max_before\":0,\"max_after\":0}\n");
}

// On a host with swap the line ends with the swap counters.
TEST(OpLine, SwapCountersOnlyWhenBothEndsHaveThem) {
  OpRecord r{.op = 1, .phase = run_format::Phase::grow, .pid = 7, .cpu = 0, .t_ns = 10, .lat_ns = 20, .held_bytes = 30,
             .before = {.current = 1, .high = 2, .max = 3, .has_swap = true, .swap = 4096, .swap_high = 17},
             .after = {.current = 5, .high = 2, .max = 3, .has_swap = true, .swap = 8192, .swap_high = 34}};
  char storage[512];
  JsonLine line(storage);
  format_op_line(r, line);
  auto j = nlohmann::json::parse(line.view());
  EXPECT_EQ(j["swap_before"], 4096);
  EXPECT_EQ(j["swap_after"], 8192);
  EXPECT_EQ(j["swap_high_before"], 17);
  EXPECT_EQ(j["swap_high_after"], 34);
  r.after.has_swap = false;
  format_op_line(r, line);
  EXPECT_FALSE(nlohmann::json::parse(line.view()).contains("swap_before"));
}

TEST(OpLine, PhasesAndLargestValuesParseBack) {
  OpRecord r{.op = UINT64_MAX, .phase = run_format::Phase::own_high, .pid = 2147483647, .cpu = -1,
             .t_ns = UINT64_MAX, .lat_ns = UINT64_MAX, .held_bytes = UINT64_MAX,
             .before = {UINT64_MAX, UINT64_MAX, UINT64_MAX}, .after = {0, 0, 0}};
  char storage[512];
  JsonLine line(storage);
  format_op_line(r, line);
  auto j = nlohmann::json::parse(line.view());
  EXPECT_EQ(j["phase"], "own_high");
  EXPECT_EQ(j["op"].get<uint64_t>(), UINT64_MAX);
  EXPECT_EQ(j["cpu"].get<int>(), -1);
  EXPECT_EQ(j["current_before"].get<uint64_t>(), UINT64_MAX);
  EXPECT_EQ(run_format::to_string(run_format::Phase::grow), "grow");
}

TEST(JsonLine, TooSmallStorageOverflowsInsteadOfTruncating) {
  char storage[40];
  JsonLine line(storage);
  format_op_line(OpRecord{}, line);
  EXPECT_FALSE(line.ok());
  EXPECT_LE(line.view().size(), sizeof storage);
}

TEST(JsonLine, EscapesStringsAndNests) {
  char storage[256];
  JsonLine line(storage);
  line.open().field_str("s", "a\"b\\c\n\x01").key("o").open().field("n", 1).close();
  line.key("a").open_array().element().u64(1).element().u64(2).close_array();
  line.key("f").f64(97.12).key("z").null().close();
  EXPECT_EQ(line.view(),
            "{\"s\":\"a\\\"b\\\\c\\u000a\\u0001\",\"o\":{\"n\":1},\"a\":[1,2],\"f\":97.12,\"z\":null}");
  EXPECT_TRUE(nlohmann::json::accept(line.view()));
}

}  // namespace
}  // namespace cgmem::lab
