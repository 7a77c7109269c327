// advise's reading of a Prometheus server's answers, with the answers made
// by the test: which queries it asks, the working set it takes, the daily
// peaks for the VPA rule, and what it refuses.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <map>

#include "advise/prometheus.h"

namespace cgmem::advise {
namespace {

constexpr double kEnd = 1'000'000'000, kDay = 86400;
constexpr uint64_t kMiB = 1 << 20;

std::string matrix(const std::string& cgroup, const std::vector<std::pair<double, std::string>>& points) {
  std::string values;
  for (const auto& [t, v] : points) values += fmt::format("{}[{},\"{}\"]", values.empty() ? "" : ",", t, v);
  return fmt::format(R"({{"status":"success","data":{{"resultType":"matrix","result":[{{"metric":{{"cgroup":"{}"}},"values":[{}]}}]}}}})",
                     cgroup, values);
}

std::string vector_of(const std::string& value) {
  return fmt::format(R"({{"status":"success","data":{{"resultType":"vector","result":[{{"metric":{{}},"value":[{},"{}"]}}]}}}})",
                     kEnd, value);
}

// Answers by the query's first words; records every path asked.
struct FakeServer {
  std::string working_set, current, events = vector_of("0"), high = vector_of("+Inf"), max = vector_of("+Inf");
  std::vector<std::string> asked;
  PromGet get() {
    return [this](const std::string& path) -> Result<std::string> {
      asked.push_back(path);
      auto has = [&](const char* q) { return path.find(url_encoded(q)) != std::string::npos; };
      if (has("clamp_min(")) return working_set;
      if (has("increase(")) return events;
      if (has("cgmem_memory_high_bytes")) return high;
      if (has("cgmem_memory_max_bytes")) return max;
      return current;
    };
  }
};

PromOptions options() { return {.selector = R"({cgroup="/app"})", .range_s = 3 * kDay, .end_s = kEnd}; }

TEST(AdvisePrometheus, TheWorkingSetIsCurrentMinusInactiveFileAndEachDayGivesAPeak) {
  FakeServer s;
  // Three days: peaks of 100, 300 and 200 MiB; NaN and garbage are skipped.
  s.working_set = matrix("/app", {{kEnd - 2.5 * kDay, std::to_string(100 * kMiB)},
                                  {kEnd - 1.5 * kDay, std::to_string(300 * kMiB)},
                                  {kEnd - 1.2 * kDay, "NaN"},
                                  {kEnd - 0.5 * kDay, std::to_string(200 * kMiB)},
                                  {kEnd - 0.2 * kDay, "12abc"},
                                  {kEnd, std::to_string(150 * kMiB)}});
  s.current = matrix("/app", {{kEnd - kDay, std::to_string(350 * kMiB)}});
  auto h = prometheus_usage(options(), s.get());
  ASSERT_TRUE(h) << h.error().message();
  EXPECT_EQ(h->usage.working_set, 300 * kMiB);
  EXPECT_EQ(h->usage.peak_current, 350 * kMiB);
  EXPECT_EQ(h->usage.dir, "/app");
  EXPECT_EQ(h->usage.series.size(), 4u);
  EXPECT_EQ(h->daily_peaks, (std::vector<uint64_t>{100 * kMiB, 300 * kMiB, 200 * kMiB})) << "oldest first";
  ASSERT_FALSE(s.asked.empty());
  EXPECT_NE(s.asked[0].find("/api/v1/query_range?query="), std::string::npos);
  EXPECT_NE(s.asked[0].find(url_encoded(R"(clamp_min(cgmem_memory_current_bytes{cgroup="/app"} - )"
                                        R"(cgmem_memory_inactive_file_bytes{cgroup="/app"}, 0))")),
            std::string::npos)
      << s.asked[0];
  EXPECT_NE(s.asked[0].find("&step=26s"), std::string::npos) << "3 days / 10000 points, rounded up: " << s.asked[0];
}

TEST(AdvisePrometheus, LimitsThatShapedTheHistoryAreRefusedAndOthersNamed) {
  FakeServer s;
  s.working_set = matrix("/app", {{kEnd - 60, "1000000"}, {kEnd - 30, "2000000"}, {kEnd, "2000000"}});
  s.current = s.working_set;
  s.events = vector_of("34");
  auto shaped = prometheus_usage(options(), s.get());
  ASSERT_FALSE(shaped);
  EXPECT_NE(shaped.error().message().find("its limits shaped its usage over the range (34 memory.high"),
            std::string::npos)
      << shaped.error().message();
  s.events = vector_of("0");
  s.max = vector_of("4194304");
  auto named = prometheus_usage(options(), s.get());
  ASSERT_TRUE(named) << named.error().message();
  EXPECT_NE(named->notes[0].find("memory.high max, memory.max 4MiB"), std::string::npos) << named->notes[0];
}

TEST(AdvisePrometheus, RefusesWhatIsNotOneSeriesOrNotAnAnswer) {
  FakeServer s;
  s.current = s.working_set = R"({"status":"success","data":{"resultType":"matrix","result":[]}})";
  auto none = prometheus_usage(options(), s.get());
  ASSERT_FALSE(none);
  EXPECT_NE(none.error().message().find("no series of the working set matched {cgroup=\"/app\"}"), std::string::npos);
  s.working_set = R"({"status":"success","data":{"result":[{"metric":{"cgroup":"/a"},"values":[]},)"
                  R"({"metric":{"cgroup":"/b"},"values":[]}]}})";
  auto two = prometheus_usage(options(), s.get());
  ASSERT_FALSE(two);
  EXPECT_NE(two.error().message().find("matched 2 series (/a, /b)"), std::string::npos) << two.error().message();
  s.working_set = R"({"status":"error","errorType":"bad_data","error":"parse error at char 3"})";
  auto refused = prometheus_usage(options(), s.get());
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message().find("Prometheus refused the working set: parse error at char 3"),
            std::string::npos);
  for (const char* odd : {"<html>", "[]", R"({"status":"success","data":[1]})",
                          R"({"status":"success","data":{"result":[7]}})"}) {
    s.working_set = odd;
    EXPECT_FALSE(prometheus_usage(options(), s.get())) << odd;
  }
  for (const char* bad : {"", "cgroup=\"/app\"", "{a}{b}", "{{x}}"})
    EXPECT_FALSE(check_selector(bad)) << bad;
  EXPECT_TRUE(check_selector(R"({cgroup="/system.slice/app.service",instance=~"web-.*"})"));
}

TEST(AdvisePrometheus, QueriesAreUrlEncoded) {
  EXPECT_EQ(url_encoded(R"(a{b="/c d"}+1)"), "a%7Bb%3D%22%2Fc%20d%22%7D%2B1");
  EXPECT_EQ(url_encoded("A-z_0.9~"), "A-z_0.9~");
}

}  // namespace
}  // namespace cgmem::advise
