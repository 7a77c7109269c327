#include "exporter/server.h"

#include <poll.h>
#include <sys/socket.h>

#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <fmt/format.h>
#include <mutex>
#include <optional>
#include <thread>

#include <httplib.h>

#include "common/clock.h"
#include "exporter/door.h"

namespace cgmem::exporter {
// Named, not anonymous: Server::Impl holds a Router and a Queue, and g++
// refuses a member of an anonymous namespace's type where this file is
// compiled inside a unity batch (-Wsubobject-linkage).
namespace serving {

// The door's connections as httplib sees them: the head read so far first,
// then the socket, every wait bounded by the connection's one deadline.
class ConnStream : public httplib::Stream {
 public:
  explicit ConnStream(Conn& c) : c_(c) {}
  bool is_readable() const override { return pos_ < c_.bytes.size() || wait(POLLIN); }
  bool is_writable() const override { return wait(POLLOUT); }
  ssize_t read(char* ptr, size_t size) override {
    if (pos_ < c_.bytes.size()) {
      size_t n = std::min(size, c_.bytes.size() - pos_);
      std::memcpy(ptr, c_.bytes.data() + pos_, n);
      pos_ += n;
      return ssize_t(n);
    }
    if (!wait(POLLIN)) return -1;
    return ::recv(c_.fd.get(), ptr, size, 0);
  }
  ssize_t write(const char* ptr, size_t size) override {
    if (!wait(POLLOUT)) return -1;
    return ::send(c_.fd.get(), ptr, size, MSG_NOSIGNAL);
  }
  void get_remote_ip_and_port(std::string& ip, int& port) const override {
    ip = c_.peer;
    port = c_.peer_port;
  }
  void get_local_ip_and_port(std::string& ip, int& port) const override {
    ip.clear();
    port = 0;
  }
  socket_t socket() const override { return c_.fd.get(); }

 private:
  // Until the fd is ready or the deadline passes (false).
  bool wait(short events) const {
    for (;;) {
      uint64_t now = cgmem::now_ns();
      if (now >= c_.deadline_ns) return false;
      pollfd p{c_.fd.get(), events, 0};
      int rc = ::poll(&p, 1, int((c_.deadline_ns - now) / 1'000'000) + 1);
      if (rc > 0) return !(p.revents & (POLLERR | POLLNVAL));
      if (rc < 0 && errno != EINTR) return false;
    }
  }
  Conn& c_;
  size_t pos_ = 0;
};

// httplib's routing and HTTP, given a request the door has read.
class Router : public httplib::Server {
 public:
  // httplib stops sending a content provider's body when svr_sock_ is
  // INVALID_SOCKET ("shutting down"), as it is without its own listen: the
  // door's listening socket stands in (httplib closes it only in stop(),
  // which is never called; the door owns it).
  void listening_on(int fd) { svr_sock_ = fd; }
  // One request per connection, answered with Connection: close: a
  // scraper opens a connection per scrape (cheap at scrape intervals), and
  // no kept-alive connection sits idle in a worker.
  void serve(Conn& c) {
    ConnStream stream(c);
    bool closed = true;
    process_request(stream, true, closed, nullptr);
  }
};

// The door's complete requests, waiting for a worker. Bounded by the
// door's max_connections: each stays counted there until released.
class Queue {
 public:
  void push(Conn c) {
    std::lock_guard lock(mutex_);
    jobs_.push_back(std::move(c));
    ready_.notify_one();
  }
  std::optional<Conn> pop() {
    std::unique_lock lock(mutex_);
    ready_.wait(lock, [&] { return !jobs_.empty() || shutdown_; });
    if (shutdown_) return std::nullopt;
    Conn c = std::move(jobs_.front());
    jobs_.pop_front();
    return c;
  }
  void shutdown() {
    std::lock_guard lock(mutex_);
    shutdown_ = true;
    ready_.notify_all();
  }

 private:
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<Conn> jobs_;
  bool shutdown_ = false;
};

void serve_metrics(Collector& collector, const httplib::Request& req, httplib::Response& res) {
  Format asked = negotiate(req.get_header_value("Accept"));
  collector.want(asked);
  std::shared_ptr<const Page> page = collector.page();
  if (!page) {
    res.status = 503;
    res.set_content("starting: no scan yet\n", "text/plain");
    return;
  }
  bool om = asked == Format::openmetrics && !page->openmetrics.empty();
  const std::string* body = om ? &page->openmetrics : &page->text;
  // The page is sent from the shared copy, in 64 KiB pieces, without copying it.
  res.set_content_provider(body->size(), std::string(content_type(om ? Format::openmetrics : Format::text)),
                           [page, body](size_t offset, size_t length, httplib::DataSink& sink) {
                             return sink.write(body->data() + offset, std::min<size_t>(length, 65536));
                           });
}

void serve_health(const Collector& collector, httplib::Response& res) {
  auto page = collector.page();
  if (!page) {
    res.status = 503;
    res.set_content("starting: no scan yet\n", "text/plain");
    return;
  }
  double age = double(cgmem::now_ns() - page->scan_ns) / 1e9;
  double limit = 3 * double(collector.interval_ns()) / 1e9;
  if (age > limit) {
    res.status = 503;
    res.set_content(fmt::format("stale: the last scan was {:.1f} s ago (interval {:.1f} s)\n", age, limit / 3),
                    "text/plain");
    return;
  }
  res.set_content(fmt::format("ok: last scan {:.1f} s ago, {} series\n", age, page->series), "text/plain");
}

}  // namespace serving

bool has_http_server() { return true; }

struct Server::Impl {
  serving::Router http;
  std::unique_ptr<Door> door;
  serving::Queue queue;
  size_t workers = 0;
};

Result<std::unique_ptr<Server>> Server::bind(Collector& collector, ServerOptions options) {
  std::unique_ptr<Server> s(new Server());
  s->impl_ = std::make_unique<Impl>();
  auto door = Door::bind({.host = options.listen.host,
                          .port = options.listen.port,
                          .max_connections = options.max_connections,
                          .per_client = options.per_client,
                          .timeout_ns = uint64_t(options.timeout_s) * 1'000'000'000});
  if (!door) return std::unexpected(door.error());
  s->impl_->door = std::move(*door);
  s->impl_->workers = std::max<size_t>(options.workers, 1);
  s->port_ = s->impl_->door->port();
  s->impl_->http.listening_on(s->impl_->door->listen_fd());
  httplib::Server& http = s->impl_->http;
  http.set_payload_max_length(4096);  // scrapers send no body
  http.Get("/metrics", [&collector](const httplib::Request& req, httplib::Response& res) {
    serving::serve_metrics(collector, req, res);
  });
  http.Get("/healthz", [&collector](const httplib::Request&, httplib::Response& res) {
    serving::serve_health(collector, res);
  });
  http.Get("/", [](const httplib::Request&, httplib::Response& res) {
    res.set_content("cgmem exporter: /metrics (Prometheus, OpenMetrics), /healthz\n", "text/plain");
  });
  return s;
}

Server::~Server() = default;

void Server::serve() {
  Impl& impl = *impl_;
  std::vector<std::jthread> workers;
  for (size_t i = 0; i < impl.workers; ++i)
    workers.emplace_back([&impl] {
      while (auto c = impl.queue.pop()) {
        impl.http.serve(*c);
        std::string peer = std::move(c->peer);
        c->fd.reset();
        impl.door->release(peer);
      }
    });
  impl.door->run([&impl](Conn c) { impl.queue.push(std::move(c)); });
  impl.queue.shutdown();
}

void Server::stop() { impl_->door->stop(); }

}  // namespace cgmem::exporter
