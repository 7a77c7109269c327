// The collector on fixture trees (the files of a real throttled cgroup):
// the page's series and format, the cap, a kill kept after its cgroup, and
// the HTTP server in front of it.
#include <gtest/gtest.h>

#include <httplib.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <ctime>
#include <filesystem>
#include <sstream>
#include <fstream>
#include <thread>

#include "exporter/collector.h"
#include "exporter/server.h"
#include "support/temp_dir.h"
#include "watch/tree.h"

namespace cgmem::exporter {
namespace {

namespace fs = std::filesystem;
using cgmem::testing::TempDir;
using watch::testing::make_cgroup;

constexpr uint64_t kS = 1'000'000'000;

void spit(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

std::unique_ptr<Collector> open_collector(CollectorOptions o) {
  auto c = Collector::open(std::move(o));
  EXPECT_TRUE(c) << (c ? "" : c.error().message());
  return c ? std::move(*c) : nullptr;
}

bool has_line(const std::string& page, const std::string& line) {
  return page.find("\n" + line + "\n") != std::string::npos;
}

TEST(Collector, ThePageHasTheCountersGaugesStateAndForecastOfEachCgroup) {
  TempDir tmp;
  make_cgroup(tmp.path() + "/root/throttled");
  auto c = open_collector({.scan = {.root = tmp.path() + "/root", .kernel = {.hz = 250}, .read_tasks = false}});
  ASSERT_TRUE(c->scan(1 * kS));
  spit(tmp.path() + "/root/throttled/memory.events.local", "low 0\nhigh 649\nmax 0\noom 0\noom_kill 0\noom_group_kill 0\n");
  spit(tmp.path() + "/root/throttled/memory.pressure",
       "some avg10=90.00 avg60=10.49 avg300=2.26 total=7007841\nfull avg10=90.00 avg60=10.49 avg300=2.26 total=7007841\n");
  ASSERT_TRUE(c->scan(2 * kS));
  auto page = c->page();
  const std::string& t = page->text;
  std::string l = "{cgroup=\"/throttled\"}";
  EXPECT_TRUE(has_line(t, "# TYPE cgmem_memory_events_high_total counter")) << t.substr(0, 2000);
  EXPECT_TRUE(has_line(t, "cgmem_memory_current_bytes" + l + " 34140160"));
  EXPECT_TRUE(has_line(t, "cgmem_memory_high_bytes" + l + " 30195712"));
  EXPECT_TRUE(has_line(t, "cgmem_memory_max_bytes" + l + " 67108864"));
  EXPECT_TRUE(has_line(t, "cgmem_memory_swap_max_bytes" + l + " +Inf"));
  EXPECT_TRUE(has_line(t, "cgmem_memory_pressure_some_seconds_total" + l + " 7.007841"));
  EXPECT_TRUE(has_line(t, "cgmem_throttle_sleeps_per_second" + l + " 20"));  // 340 / 17 in 1 s
  EXPECT_TRUE(has_line(t, "cgmem_state{cgroup=\"/throttled\",state=\"throttled\"} 1"));
  EXPECT_TRUE(has_line(t, "cgmem_state{cgroup=\"/throttled\",state=\"ok\"} 0"));
  EXPECT_EQ(t.find("state=\"gone\""), std::string::npos);
  EXPECT_TRUE(has_line(t, "cgmem_throttle_sleep_seconds" + l + " 1.12"));  // HZ 250, 13% over memory.high
  EXPECT_TRUE(has_line(t, "cgmem_exporter_cgroups 1"));
  EXPECT_EQ(t.find("# EOF"), std::string::npos);
  EXPECT_TRUE(page->openmetrics.empty());  // nobody asked for it
  EXPECT_GT(page->series, 25u);
  EXPECT_LE(page->series, max_series_per_cgroup());
}

// The two reads of tests/fixtures/watch-vm-6.12-swap (the VM with zram
// swap), the second written over the first in place, as the kernel does.
void copy_files(const std::string& from, const std::string& to) {
  fs::create_directories(to);
  for (const auto& file : fs::directory_iterator(from))
    if (file.is_regular_file()) {
      std::ifstream in(file.path());
      std::stringstream text;
      text << in.rdbuf();
      spit(to + "/" + file.path().filename().string(), text.str());
    }
}

TEST(Collector, TheSwappingStateAndTheSwapSeriesAreOnThePage) {
  TempDir tmp;
  const std::string snap = std::string(CGMEM_FIXTURES) + "/watch-vm-6.12-swap/";
  for (const char* name : {"swapping", "swaphigh"}) copy_files(snap + "0/cgmem/" + name, tmp.path() + "/root/" + name);
  // No tasks read: the exporter's systemd unit cannot read another user's wchan either.
  auto c = open_collector({.scan = {.root = tmp.path() + "/root", .kernel = {.hz = 250}, .read_tasks = false}});
  ASSERT_TRUE(c->scan(45057836298));  // the snapshot's read times
  for (const char* name : {"swapping", "swaphigh"}) copy_files(snap + "1/cgmem/" + name, tmp.path() + "/root/" + name);
  ASSERT_TRUE(c->scan(47907726748));
  const std::string& t = c->page()->text;
  EXPECT_TRUE(has_line(t, "cgmem_state{cgroup=\"/swapping\",state=\"swapping\"} 1")) << t.substr(t.find("# HELP cgmem_state"), 1500);
  EXPECT_TRUE(has_line(t, "cgmem_state{cgroup=\"/swapping\",state=\"throttled\"} 0"));
  EXPECT_TRUE(has_line(t, "cgmem_state{cgroup=\"/swaphigh\",state=\"throttled\"} 1"));
  EXPECT_TRUE(has_line(t, "cgmem_state{cgroup=\"/swaphigh\",state=\"swapping\"} 0"));
  EXPECT_TRUE(has_line(t, "cgmem_memory_swap_high_bytes{cgroup=\"/swaphigh\"} 4194304"));
  EXPECT_TRUE(has_line(t, "cgmem_memory_swap_high_bytes{cgroup=\"/swapping\"} +Inf"));
  EXPECT_TRUE(has_line(t, "cgmem_memory_swap_events_high_total{cgroup=\"/swaphigh\"} 5589"));
  EXPECT_TRUE(has_line(t, "cgmem_memory_swap_events_fail_total{cgroup=\"/swapping\"} 0"));
  // memory.swap.current 40.5% over memory.swap.high: 2627 jiffies at HZ=250, clamped to 500.
  EXPECT_TRUE(has_line(t, "cgmem_throttle_delay_seconds{cgroup=\"/swaphigh\",term=\"swap\"} 10.508"));
  EXPECT_TRUE(has_line(t, "cgmem_throttle_delay_seconds{cgroup=\"/swaphigh\",term=\"memory\"} 0"));
  EXPECT_TRUE(has_line(t, "cgmem_throttle_sleep_seconds{cgroup=\"/swaphigh\"} 2.016"));
  EXPECT_EQ(t.find("cgmem_throttle_delay_seconds{cgroup=\"/swapping\""), std::string::npos);  // under both limits
  EXPECT_LE(c->page()->series, 2 * max_series_per_cgroup());
}

TEST(Collector, OpenMetricsIsRenderedOnceAScraperAsksForIt) {
  TempDir tmp;
  make_cgroup(tmp.path() + "/root/a");
  auto c = open_collector({.scan = {.root = tmp.path() + "/root"}});
  c->want(Format::openmetrics);
  ASSERT_TRUE(c->scan(1 * kS));
  const std::string& om = c->page()->openmetrics;
  EXPECT_TRUE(has_line(om, "# TYPE cgmem_memory_events_high counter"));
  EXPECT_TRUE(has_line(om, "# UNIT cgmem_memory_current_bytes bytes"));
  EXPECT_TRUE(has_line(om, "cgmem_memory_events_high_total{cgroup=\"/a\"} 309"));
  EXPECT_TRUE(om.ends_with("\n# EOF\n"));
  ASSERT_TRUE(c->scan(2 * kS));
  EXPECT_TRUE(c->page()->openmetrics.empty());  // not asked for since
}

TEST(Collector, MaxSeriesLeavesCgroupsOutAndCountsThem) {
  TempDir tmp;
  for (const char* name : {"a", "b", "c"}) make_cgroup(tmp.path() + "/root/" + name);
  auto c = open_collector({.scan = {.root = tmp.path() + "/root"}, .max_series = 2 * max_series_per_cgroup()});
  ASSERT_TRUE(c->scan(1 * kS));
  EXPECT_TRUE(has_line(c->page()->text, "cgmem_exporter_cgroups 2"));
  EXPECT_TRUE(has_line(c->page()->text, "cgmem_exporter_cgroups_dropped 1"));
  auto too_small = Collector::open({.scan = {.root = tmp.path() + "/root"}, .max_series = 10});
  ASSERT_FALSE(too_small);
  EXPECT_EQ(too_small.error().message(),
            "cap the series at 10: one cgroup can have " + std::to_string(max_series_per_cgroup()) +
                " series (give --max-series " + std::to_string(max_series_per_cgroup()) + " or more)");
}

TEST(Collector, AKillCaughtByItsEventOutlivesTheCgroup) {
  TempDir tmp;
  make_cgroup(tmp.path() + "/root/parent");
  auto c = open_collector({.scan = {.root = tmp.path() + "/root"}, .kill_retention_ns = 60 * kS});
  ASSERT_TRUE(c->scan(1 * kS));
  // A container is created, OOM-killed and removed between two scans.
  make_cgroup(tmp.path() + "/root/parent/victim");
  c->read_events(2 * kS);  // the mkdir
  spit(tmp.path() + "/root/parent/victim/memory.events.local", "low 0\nhigh 0\nmax 35\noom 1\noom_kill 1\noom_group_kill 0\n");
  spit(tmp.path() + "/root/parent/victim/memory.events", "low 0\nhigh 0\nmax 35\noom 1\noom_kill 1\noom_group_kill 0\n");
  c->read_events(3 * kS);  // the kill
  fs::remove_all(tmp.path() + "/root/parent/victim");
  ASSERT_TRUE(c->scan(4 * kS));
  const std::string& t = c->page()->text;
  EXPECT_TRUE(has_line(t, "cgmem_oom_kills_seen_total{cgroup=\"/parent/victim\"} 1")) << t.substr(t.find("# HELP cgmem_oom"));
  EXPECT_EQ(t.find("cgmem_memory_current_bytes{cgroup=\"/parent/victim\"}"), std::string::npos);
  ASSERT_TRUE(c->scan(65 * kS));  // past the retention
  EXPECT_EQ(c->page()->text.find("cgroup=\"/parent/victim\""), std::string::npos);
}

TEST(Collector, LongPathsAreCutCountedAndStayDistinctSeries) {
  TempDir tmp;
  std::string head = tmp.path() + "/root";
  for (int i = 0; i < 5; ++i) head += "/" + std::string(250, char('a' + i));  // 1,255 bytes below the root
  make_cgroup(head + "/one");
  make_cgroup(head + "/two");
  auto c = open_collector({.scan = {.root = tmp.path() + "/root", .read_tasks = false}});
  ASSERT_TRUE(c->scan(1 * kS));
  ASSERT_TRUE(c->scan(2 * kS));
  const std::string& t = c->page()->text;
  EXPECT_TRUE(has_line(t, "cgmem_exporter_label_values_cut 2")) << t.substr(t.size() - 3000);
  std::vector<std::string> current;
  std::istringstream lines(t);
  for (std::string line; std::getline(lines, line);) {
    EXPECT_LT(line.size(), kMaxLabelValue + 200) << line.substr(0, 100);
    if (line.starts_with("cgmem_memory_current_bytes{")) current.push_back(line);
  }
  ASSERT_EQ(current.size(), 2u);
  EXPECT_NE(current[0], current[1]);
  EXPECT_NE(current[0].find("...[cut "), std::string::npos) << current[0];
}

TEST(Collector, AnUnknownCgroupHasItsStateAndNoMadeUpValues) {
  TempDir tmp;
  make_cgroup(tmp.path() + "/root/bad");
  spit(tmp.path() + "/root/bad/memory.current", "garbage\n");
  spit(tmp.path() + "/root/bad/memory.high", "-1\n");
  auto c = open_collector({.scan = {.root = tmp.path() + "/root", .read_tasks = false}});
  ASSERT_TRUE(c->scan(1 * kS));
  ASSERT_TRUE(c->scan(2 * kS));
  const std::string& t = c->page()->text;
  EXPECT_TRUE(has_line(t, "cgmem_state{cgroup=\"/bad\",state=\"unknown\"} 1")) << t;
  EXPECT_TRUE(has_line(t, "cgmem_state{cgroup=\"/bad\",state=\"ok\"} 0"));
  EXPECT_EQ(t.find("cgmem_memory_current_bytes{cgroup=\"/bad\"}"), std::string::npos);
  EXPECT_EQ(t.find("cgmem_memory_high_bytes{cgroup=\"/bad\"}"), std::string::npos);
  EXPECT_TRUE(has_line(t, "cgmem_memory_max_bytes{cgroup=\"/bad\"} 67108864"));
  EXPECT_TRUE(has_line(t, "cgmem_memory_controller_usable 1"));
}

TEST(Collector, ATreeWithoutMemoryCurrentHasTheGaugeAtZeroWithTheReason) {
  TempDir tmp;
  fs::create_directories(tmp.path() + "/root/system.slice");
  auto c = open_collector({.scan = {.root = tmp.path() + "/root"}, .memory_v1_mount = "/sys/fs/cgroup/memory"});
  ASSERT_TRUE(c->scan(1 * kS));
  const std::string& t = c->page()->text;
  std::string reason = "no cgroup under " + tmp.path() + "/root has memory.current: the cgroup v2 memory "
                       "controller is not enabled there; memory is bound to cgroup v1 (mounted at /sys/fs/cgroup/memory)";
  EXPECT_TRUE(has_line(t, "cgmem_memory_controller_usable{reason=\"" + reason + "\"} 0")) << t;
  EXPECT_EQ(c->nothing_to_watch(), reason);
}

TEST(Negotiate, PrometheusAcceptHeaderGetsOpenMetricsCurlGetsText) {
  EXPECT_EQ(negotiate("application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;"
                      "q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1"),
            Format::openmetrics);
  EXPECT_EQ(negotiate("*/*"), Format::text);
  EXPECT_EQ(negotiate(""), Format::text);
  EXPECT_EQ(negotiate("application/openmetrics-text;q=0,text/plain"), Format::text);
}

TEST(ParseListen, HostAndPort) {
  auto a = parse_listen("127.0.0.1:9262");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->host, "127.0.0.1");
  EXPECT_EQ(a->port, 9262);
  auto b = parse_listen("[::1]:0");
  ASSERT_TRUE(b);
  EXPECT_EQ(b->host, "::1");
  EXPECT_EQ(parse_listen("9262").error().message(),
            "--listen '9262': no port (give HOST:PORT, e.g. 127.0.0.1:9262, [::1]:9262, or 0.0.0.0:9262 for every address)");
  EXPECT_FALSE(parse_listen("127.0.0.1:99999"));
  EXPECT_FALSE(parse_listen("::1:80"));
}

TEST(Server, ServesTheLastPageInTheAskedFormatAndHealth) {
  TempDir tmp;
  make_cgroup(tmp.path() + "/root/a");
  auto c = open_collector({.scan = {.root = tmp.path() + "/root"}, .interval_ns = 3600 * kS});
  ASSERT_TRUE(c->scan(0));
  auto server = Server::bind(*c, {.listen = {.host = "127.0.0.1", .port = 0}});
  ASSERT_TRUE(server) << server.error().message();
  std::thread http([&] { (*server)->serve(); });
  httplib::Client client("127.0.0.1", (*server)->port());
  httplib::Headers om = {{"Accept", "application/openmetrics-text;version=1.0.0,text/plain;q=0.5"}};
  auto first = client.Get("/metrics", om);
  ASSERT_TRUE(first);
  EXPECT_EQ(first->status, 200);
  EXPECT_EQ(first->get_header_value("Content-Type"), "text/plain; version=0.0.4; charset=utf-8");
  EXPECT_NE(first->body.find("cgmem_memory_current_bytes{cgroup=\"/a\"} 34140160"), std::string::npos);
  ASSERT_TRUE(c->scan(0));  // the next page has OpenMetrics: it was asked for
  auto second = client.Get("/metrics", om);
  ASSERT_TRUE(second);
  EXPECT_EQ(second->get_header_value("Content-Type"), "application/openmetrics-text; version=1.0.0; charset=utf-8");
  EXPECT_TRUE(second->body.ends_with("# EOF\n"));
  auto health = client.Get("/healthz");
  ASSERT_TRUE(health);
  EXPECT_EQ(health->status, 200);
  EXPECT_TRUE(health->body.starts_with("ok: last scan ")) << health->body;
  auto missing = client.Get("/nothing");
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->status, 404);
  (*server)->stop();
  http.join();
}

// A TCP connection to 127.0.0.1:port that has sent `text` (-1 if refused).
int connect_to(int port, const std::string& text = "") {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{.sin_family = AF_INET, .sin_port = htons(uint16_t(port))};
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0) return ::close(fd), -1;
  if (!text.empty()) (void)!::send(fd, text.data(), text.size(), MSG_NOSIGNAL);
  return fd;
}

// True when the server closed fd within ms milliseconds.
bool closed_within(int fd, int ms) {
  pollfd p{fd, POLLIN, 0};
  char byte;
  return ::poll(&p, 1, ms) == 1 && ::recv(fd, &byte, 1, 0) <= 0;
}

// With httplib's own accept loop, 23 connections that sent nothing held
// its 4 workers and its queue, and a scrape waited 14.9 s; each was let go
// only after its keep-alive timeout, and a client sending a byte at a time
// could hold a worker without end.
TEST(Server, IdleAndSlowConnectionsDelayNoScrape) {
  TempDir tmp;
  make_cgroup(tmp.path() + "/root/a");
  auto c = open_collector({.scan = {.root = tmp.path() + "/root"}, .interval_ns = 3600 * kS});
  ASSERT_TRUE(c->scan(0));
  auto server = Server::bind(*c, {.listen = {.host = "127.0.0.1", .port = 0}, .timeout_s = 2});
  ASSERT_TRUE(server) << server.error().message();
  std::thread http([&] { (*server)->serve(); });
  int port = (*server)->port();
  std::vector<int> idle;
  for (int i = 0; i < 40; ++i) idle.push_back(connect_to(port));
  for (int i = 0; i < 5; ++i) idle.push_back(connect_to(port, "GET /metrics HTTP/1.1\r\nHost: a\r\n"));
  auto start = std::chrono::steady_clock::now();
  httplib::Client client("127.0.0.1", port);
  client.set_read_timeout(10, 0);
  for (int i = 0; i < 3; ++i) {
    auto page = client.Get("/metrics");
    ASSERT_TRUE(page);
    EXPECT_EQ(page->status, 200);
    EXPECT_NE(page->body.find("cgmem_memory_current_bytes{cgroup=\"/a\"} 34140160"), std::string::npos);
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(1));
  // 16 per client: the oldest of the 45 were closed to make room.
  EXPECT_TRUE(closed_within(idle.front(), 500));
  // The rest, the half-sent heads too, within their one deadline of 2 s.
  EXPECT_TRUE(closed_within(idle.back(), 3000));
  for (int fd : idle) ::close(fd);
  (*server)->stop();
  http.join();
}

// CPU time this process has used, in milliseconds.
double cpu_ms() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return double(t.tv_sec) * 1e3 + double(t.tv_nsec) / 1e6;
}

// Out of descriptors, accept() fails while the connection stays pending,
// so the listening socket stays readable: polling it again at once spun a
// core for as long as the limit held.
TEST(Server, OutOfDescriptorsItPausesAcceptingAndServesWhenTheyAreBack) {
  TempDir tmp;
  make_cgroup(tmp.path() + "/root/a");
  auto c = open_collector({.scan = {.root = tmp.path() + "/root"}, .interval_ns = 3600 * kS});
  ASSERT_TRUE(c->scan(0));
  auto server = Server::bind(*c, {.listen = {.host = "127.0.0.1", .port = 0}, .timeout_s = 5});
  ASSERT_TRUE(server) << server.error().message();
  std::thread http([&] { (*server)->serve(); });
  int port = (*server)->port();
  // One scrape first, so every thread has started and the types it uses
  // have been checked while descriptors were there: UBSan's vptr check
  // tests memory through a pipe, and with no descriptor left it reports
  // an object that is fine as invalid.
  httplib::Client warm("127.0.0.1", port);
  ASSERT_TRUE(warm.Get("/metrics"));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  // The clients' sockets, then no descriptor left for accept().
  std::vector<int> clients;
  for (int i = 0; i < 4; ++i) clients.push_back(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  int lowest_free = ::dup(0);
  ::close(lowest_free);
  rlimit saved{};
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &saved), 0);
  rlimit low = saved;
  low.rlim_cur = rlim_t(lowest_free);
  ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &low), 0);
  sockaddr_in a{.sin_family = AF_INET, .sin_port = htons(uint16_t(port))};
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  for (int fd : clients) ASSERT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)), 0);
  const std::string get = "GET /metrics HTTP/1.1\r\nHost: a\r\n\r\n";
  (void)!::send(clients[0], get.data(), get.size(), MSG_NOSIGNAL);
  double before = cpu_ms();
  std::this_thread::sleep_for(std::chrono::milliseconds(600));
  double used = cpu_ms() - before;
  ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &saved), 0);
  EXPECT_LT(used, 200) << "ms of CPU in 600 ms while out of descriptors";
  // With descriptors back, the waiting scrape is answered.
  pollfd p{clients[0], POLLIN, 0};
  EXPECT_EQ(::poll(&p, 1, 3000), 1);
  char head[16] = {};
  EXPECT_GT(::recv(clients[0], head, sizeof(head) - 1, 0), 0);
  EXPECT_TRUE(std::string(head).starts_with("HTTP/1.1 200")) << head;
  for (int fd : clients) ::close(fd);
  (*server)->stop();
  http.join();
}

TEST(Server, APortInUseIsAnErrorNamingTheAddress) {
  TempDir tmp;
  make_cgroup(tmp.path() + "/root/a");
  auto c = open_collector({.scan = {.root = tmp.path() + "/root"}});
  ASSERT_TRUE(c->scan(0));
  auto first = Server::bind(*c, {.listen = {.host = "127.0.0.1", .port = 0}});
  ASSERT_TRUE(first);
  auto second = Server::bind(*c, {.listen = {.host = "127.0.0.1", .port = (*first)->port()}});
  ASSERT_FALSE(second);
  EXPECT_TRUE(second.error().message().starts_with("listen on 127.0.0.1:" + std::to_string((*first)->port())))
      << second.error().message();
}

}  // namespace
}  // namespace cgmem::exporter

namespace cgmem::exporter {
namespace {

// The per-page rule the forecasts used, one series per host, by the kernel's stock slots.
TEST(CollectorKernelRules, ThePageNamesTheRegimeRuleOfTheKernel) {
  TempDir tmp;
  make_cgroup(tmp.path() + "/root/throttled");
  auto on612 = open_collector({.scan = {.root = tmp.path() + "/root", .kernel = {.hz = 250}, .read_tasks = false}});
  ASSERT_TRUE(on612->scan(1 * kS));
  EXPECT_TRUE(has_line(on612->page()->text, "# TYPE cgmem_throttle_regime_rule gauge"));
  EXPECT_TRUE(has_line(on612->page()->text,
                       "cgmem_throttle_regime_rule{version=\"6.12\",stock_slots=\"1\",rule=\"per page when any other "
                       "cgroup charges on this CPU\"} 1"));
  auto on618 = open_collector({.scan = {.root = tmp.path() + "/root",
                                        .kernel = {.hz = 250, .rules = model::rules_for({6, 18})},
                                        .read_tasks = false}});
  ASSERT_TRUE(on618->scan(1 * kS));
  EXPECT_TRUE(has_line(on618->page()->text,
                       "cgmem_throttle_regime_rule{version=\"6.18\",stock_slots=\"7\",rule=\"per page needs 7 or more "
                       "other cgroups charging on this CPU\"} 1"));
}

}  // namespace
}  // namespace cgmem::exporter
