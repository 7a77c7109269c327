#include "exporter/server.h"

#include <sys/socket.h>

#include <condition_variable>
#include <deque>
#include <fmt/format.h>
#include <thread>

#include <httplib.h>

#include "common/clock.h"

namespace cgmem::exporter {
namespace {

// httplib's own ThreadPool queues without bound; this one makes the accept
// loop wait when `queued` connections already wait for a worker.
class BoundedPool : public httplib::TaskQueue {
 public:
  BoundedPool(size_t workers, size_t queued) : queued_(queued) {
    for (size_t i = 0; i < workers; ++i) threads_.emplace_back([this] { work(); });
  }

  void enqueue(std::function<void()> fn) override {
    std::unique_lock lock(mutex_);
    not_full_.wait(lock, [&] { return jobs_.size() < queued_ || shutdown_; });
    jobs_.push_back(std::move(fn));
    not_empty_.notify_one();
  }

  void shutdown() override {
    {
      std::lock_guard lock(mutex_);
      shutdown_ = true;
    }
    not_empty_.notify_all();
    not_full_.notify_all();
    for (auto& t : threads_) t.join();
  }

 private:
  void work() {
    for (;;) {
      std::function<void()> fn;
      {
        std::unique_lock lock(mutex_);
        not_empty_.wait(lock, [&] { return !jobs_.empty() || shutdown_; });
        if (jobs_.empty()) return;  // shut down, nothing left
        fn = std::move(jobs_.front());
        jobs_.pop_front();
        not_full_.notify_one();
      }
      fn();
    }
  }

  size_t queued_;
  std::mutex mutex_;
  std::condition_variable not_empty_, not_full_;
  std::deque<std::function<void()>> jobs_;
  std::vector<std::thread> threads_;
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

}  // namespace

bool has_http_server() { return true; }

struct Server::Impl {
  httplib::Server http;
};

Result<std::unique_ptr<Server>> Server::bind(Collector& collector, ServerOptions options) {
  std::unique_ptr<Server> s(new Server());
  s->impl_ = std::make_unique<Impl>();
  httplib::Server& http = s->impl_->http;
  size_t workers = options.workers, queued = options.queued;
  http.new_task_queue = [workers, queued] { return new BoundedPool(workers, queued); };
  http.set_read_timeout(options.timeout_s, 0);
  http.set_write_timeout(options.timeout_s, 0);
  http.set_payload_max_length(4096);  // scrapers send no body
  // SO_REUSEADDR alone: a restart binds at once, but a port another process
  // listens on is an error (httplib's default, SO_REUSEPORT, would share it).
  http.set_socket_options([](socket_t sock) {
    int yes = 1;
    ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
  });
  http.Get("/metrics", [&collector](const httplib::Request& req, httplib::Response& res) {
    serve_metrics(collector, req, res);
  });
  http.Get("/healthz", [&collector](const httplib::Request&, httplib::Response& res) {
    serve_health(collector, res);
  });
  http.Get("/", [](const httplib::Request&, httplib::Response& res) {
    res.set_content("cgmem exporter: /metrics (Prometheus, OpenMetrics), /healthz\n", "text/plain");
  });
  const Listen& l = options.listen;
  if (l.port == 0) {
    s->port_ = http.bind_to_any_port(l.host);
  } else {
    s->port_ = http.bind_to_port(l.host, l.port) ? l.port : -1;
  }
  if (s->port_ < 0)
    return sys_error(fmt::format("listen on {}:{}", l.host, l.port), "",
                     "is the port in use (ss -ltnp) or the address not this host's? pick another with --listen");
  return s;
}

Server::~Server() = default;

void Server::serve() { impl_->http.listen_after_bind(); }

void Server::stop() { impl_->http.stop(); }

}  // namespace cgmem::exporter
