#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "support/temp_dir.h"
#include "trace/format.h"
#include "trace/records.h"
#include "trace/ring_page.h"
#include "trace/tracer.h"

namespace cgmem::trace {
namespace {

const std::string kTracefs = std::string(CGMEM_FIXTURES) + "/tracefs-6.12-cgmem";

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

EventFormat format_of(const std::string& rel) {
  auto f = parse_format(slurp(kTracefs + "/events/" + rel + "/format"));
  EXPECT_TRUE(f.has_value()) << rel << ": " << (f ? "" : f.error().message());
  return f ? *f : EventFormat{};
}

std::vector<std::pair<Kind, EventFormat>> all_formats() {
  std::vector<std::pair<Kind, EventFormat>> out;
  for (const auto& e : kEvents) out.emplace_back(e.kind, format_of(std::string(e.system) + "/" + std::string(e.name)));
  return out;
}

// Little-endian bytes, as the ring buffer holds them.
struct Bytes {
  std::vector<uint8_t> b;
  Bytes& u(uint64_t v, int size) {
    for (int i = 0; i < size; ++i) b.push_back(static_cast<uint8_t>(v >> (8 * i)));
    return *this;
  }
  Bytes& text(std::string_view s, size_t size) {
    for (size_t i = 0; i < size; ++i) b.push_back(i < s.size() ? static_cast<uint8_t>(s[i]) : 0);
    return *this;
  }
};

// A memcg_stock_drain record as the kernel writes it (its format's offsets).
std::vector<uint8_t> drain_record(uint16_t id, int pid, uint64_t memcg, uint64_t by, uint32_t pages, int cpu,
                                  int cause, std::string_view comm) {
  Bytes r;
  r.u(id, 2).u(0, 1).u(0, 1).u(static_cast<uint32_t>(pid), 4);
  r.u(memcg, 8).u(by, 8).u(pages, 4).u(static_cast<uint32_t>(cpu), 4).u(static_cast<uint32_t>(cause), 4);
  r.text(comm, 16);
  return r.b;
}

// An event header: type_len in the low 5 bits, the delta in the high 27.
uint32_t header(uint32_t type_len, uint32_t delta) { return type_len | (delta << 5); }

TEST(TraceFormat, ReadsTheKernelsFormatsByName) {
  EventFormat drain = format_of("memcg/memcg_stock_drain");
  EXPECT_EQ(drain.name, "memcg_stock_drain");
  EXPECT_EQ(drain.id, 345u);
  ASSERT_NE(drain.field("comm"), nullptr);
  EXPECT_EQ(drain.field("comm")->offset, 36u);
  EXPECT_EQ(drain.field("comm")->size, 16u);
  EXPECT_TRUE(drain.field("cpu")->is_signed);
  EventFormat sw = format_of("sched/sched_switch");
  EXPECT_EQ(sw.field("next_pid")->offset, 56u);
  EXPECT_EQ(sw.field("prev_state")->size, 8u);
  auto page = parse_format(slurp(kTracefs + "/events/header_page"));
  ASSERT_TRUE(page.has_value());
  EXPECT_FALSE(page->id.has_value());
  EXPECT_EQ(page->field("commit")->offset, 8u);
  EXPECT_EQ(page->field("data")->offset, 16u);
  EXPECT_EQ(page->field("data")->size, 4080u);
}

TEST(TraceFormat, AFieldLineItCannotReadIsAnErrorNotSkipped) {
  for (const char* text : {"name: x\nID: 1\nformat:\n\tfield:int a;\toffset:x;\tsize:4;\tsigned:1;\n",
                           "name: x\nID: 1\nformat:\n\tfield:int a;\toffset:0;\tsize:0;\tsigned:1;\n",
                           "name: x\nID: 1\nformat:\n\tfield:int a;\toffset:65535;\tsize:4;\tsigned:1;\n",
                           "name: x\nID: 1\nformat:\n\tfield:int a$;\toffset:0;\tsize:4;\tsigned:1;\n",
                           "name: x\nID: 99999\nformat:\n\tfield:int a;\toffset:0;\tsize:4;\tsigned:1;\n",
                           "name: x\nID: 1\nformat:\n", ""}) {
    EXPECT_FALSE(parse_format(text).has_value()) << text;
  }
}

TEST(TraceFormat, FieldsReadSignedUnsignedAndTextWithinTheirRecord) {
  Field s{.name = "s", .offset = 0, .size = 4, .is_signed = true};
  Field u{.name = "u", .offset = 0, .size = 4, .is_signed = false};
  std::vector<uint8_t> data = {0xff, 0xff, 0xff, 0xff};
  EXPECT_EQ(read_signed(s, data), -1);
  EXPECT_EQ(read_unsigned(u, data), 0xffffffffu);
  Field past{.name = "p", .offset = 2, .size = 4};
  EXPECT_FALSE(read_unsigned(past, data).has_value());
  Field odd{.name = "o", .offset = 0, .size = 3};
  EXPECT_FALSE(read_unsigned(odd, data).has_value());
  std::vector<uint8_t> comm = {'a', 'b', 0, 'c'};
  EXPECT_EQ(read_chars({.name = "c", .offset = 0, .size = 4}, comm), "ab");
}

TEST(TracePage, ReadsEventsTimeExtendsAndPaddingToThePagesEnd) {
  auto record = drain_record(345, 77, 68, 115, 58, 0, 0, "cgmem");  // 52 bytes: type_len 13
  Bytes events;
  events.u(header(13, 5), 4).b.insert(events.b.end(), record.begin(), record.end());
  events.u(header(30, 3), 4).u(2, 4);  // a time extend: 3 + 2 << 27
  // A long event: type_len 0, its length (data + this word) next.
  events.u(header(0, 7), 4).u(record.size() + 4, 4).b.insert(events.b.end(), record.begin(), record.end());
  events.u(header(29, 11), 4).u(12, 4).u(0, 8);  // a discarded event: 16 bytes of padding with a delta
  events.u(header(13, 1), 4).b.insert(events.b.end(), record.begin(), record.end());
  events.u(header(29, 0), 4);  // the page's end
  Bytes page;
  page.u(1000, 8).u(events.b.size(), 8);
  page.b.insert(page.b.end(), events.b.begin(), events.b.end());
  page.b.resize(4096);
  auto parsed = parse_page(page.b, PageLayout{});
  ASSERT_TRUE(parsed.has_value()) << parsed.error().message();
  ASSERT_EQ(parsed->events.size(), 3u);
  EXPECT_EQ(parsed->events[0].ts, 1005u);
  EXPECT_EQ(parsed->events[1].ts, 1005u + 3 + (uint64_t{2} << 27) + 7);
  EXPECT_EQ(parsed->events[2].ts, parsed->events[1].ts + 11 + 1);
  for (const auto& e : parsed->events) EXPECT_EQ(std::vector<uint8_t>(e.data.begin(), e.data.end()), record);
  EXPECT_EQ(parsed->missed, 0u);
  EXPECT_FALSE(parsed->missed_unknown);
}

TEST(TracePage, EventsTheWriterLostAreCounted) {
  Bytes page;
  page.u(1, 8).u(0 | (uint64_t{1} << 31) | (uint64_t{1} << 30), 8).u(42, 8);
  page.b.resize(4096);
  auto stored = parse_page(page.b, PageLayout{});
  ASSERT_TRUE(stored.has_value());
  EXPECT_EQ(stored->missed, 42u);
  Bytes unknown;
  unknown.u(1, 8).u(uint64_t{1} << 31, 8);
  unknown.b.resize(4096);
  EXPECT_TRUE(parse_page(unknown.b, PageLayout{})->missed_unknown);
}

TEST(TracePage, ALengthThatLiesEndsThePageWithAnErrorNeverAReadPastIt) {
  auto page_with = [](uint64_t commit, std::vector<uint8_t> events, size_t size = 4096) {
    Bytes page;
    page.u(0, 8).u(commit, 8);
    page.b.insert(page.b.end(), events.begin(), events.end());
    page.b.resize(size);
    return page.b;
  };
  EXPECT_FALSE(parse_page(page_with(5000, {}), PageLayout{}).has_value());             // commit past the page
  EXPECT_FALSE(parse_page(page_with(100, {}, 64), PageLayout{}).has_value());          // past what was read
  EXPECT_FALSE(parse_page(std::vector<uint8_t>(10), PageLayout{}).has_value());        // no header
  Bytes big;
  big.u(header(0, 1), 4).u(1000, 4);
  EXPECT_FALSE(parse_page(page_with(8, big.b), PageLayout{}).has_value());             // type 0 past the commit
  Bytes word;
  word.u(header(28, 1), 4);
  EXPECT_FALSE(parse_page(page_with(4, word.b), PageLayout{}).has_value());            // 112 bytes in 4
  Bytes pad;
  pad.u(header(29, 1), 4).u(2, 4);
  EXPECT_FALSE(parse_page(page_with(8, pad.b), PageLayout{}).has_value());             // padding under 8
}

TEST(TraceDecoder, DecodesEachEventByItsFormatIntoTheLinesKeys) {
  auto decoder = Decoder::create(all_formats());
  ASSERT_TRUE(decoder.has_value()) << decoder.error().message();
  auto drain = decoder->decode(drain_record(345, 77, 68, 115, 58, 1, 0, "neigh\nbour"), nullptr);
  ASSERT_TRUE(drain.has_value());
  EXPECT_EQ(drain->kind, Kind::stock_drain);
  EXPECT_EQ(drain->pid, 77);
  EXPECT_EQ(drain->fields.dump(),
            R"({"stock_cpu":1,"cgroup_id":68,"nr_pages":58,"cause":"refill","by_cgroup_id":115,"comm":"neigh\\nbour"})");
  EXPECT_EQ(decoder->decode(drain_record(345, 1, 2, 0, 3, 0, 9, "x"), nullptr)->fields["cause"], "unknown");
  EXPECT_FALSE(decoder->decode(drain_record(999, 1, 2, 0, 3, 0, 0, "x"), nullptr).has_value());  // another event
  auto short_record = drain_record(345, 1, 2, 0, 3, 0, 0, "x");
  short_record.resize(30);
  EXPECT_FALSE(decoder->decode(short_record, nullptr).has_value());
}

TEST(TraceDecoder, AKernelWhoseEventLacksAFieldIsRefusedByName) {
  auto formats = all_formats();
  auto& penalty = formats[2].second;
  std::erase_if(penalty.fields, [](const Field& f) { return f.name == "reclaim_ns"; });
  auto decoder = Decoder::create(formats);
  ASSERT_FALSE(decoder.has_value());
  EXPECT_NE(decoder.error().message().find("memcg_high_penalty has no field 'reclaim_ns'"), std::string::npos)
      << decoder.error().message();
}

TEST(Tracer, RefusesWithoutTracefsOrWithoutCgmemsEventsNamingTheWayOut) {
  testing::TempDir tmp;
  auto none = Tracer::start({.tracefs = tmp.path() + "/nowhere", .driver_pid = 1});
  ASSERT_FALSE(none.has_value());
  EXPECT_NE(none.error().message().find("tracefs is not mounted"), std::string::npos) << none.error().message();
  // Debian's kernel: tracefs with the scheduler's events and no memcg ones.
  std::filesystem::create_directories(tmp.path() + "/t/instances");
  std::filesystem::create_directories(tmp.path() + "/t/events/sched/sched_switch");
  auto stock = Tracer::start({.tracefs = tmp.path() + "/t", .driver_pid = 1});
  ASSERT_FALSE(stock.has_value());
  std::string message = stock.error().message();
  EXPECT_NE(message.find("this kernel has no memcg:memcg_stock_drain trace event"), std::string::npos) << message;
  EXPECT_NE(message.find("--patch memcg-trace"), std::string::npos) << message;
  EXPECT_NE(message.find("--kernel hz1000-throttle-slots-trace"), std::string::npos) << message;
  EXPECT_TRUE(std::filesystem::is_empty(tmp.path() + "/t/instances"));  // nothing created
}

}  // namespace
}  // namespace cgmem::trace
