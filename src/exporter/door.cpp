#include "exporter/door.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <fmt/format.h>

#include "common/clock.h"

namespace cgmem::exporter {
namespace {

// How long accepting pauses when the process is out of descriptors.
constexpr uint64_t kAcceptPauseNs = 100'000'000;

std::string address_of(const sockaddr_storage& a, int& port) {
  char text[INET6_ADDRSTRLEN] = "?";
  if (a.ss_family == AF_INET) {
    const auto& v4 = reinterpret_cast<const sockaddr_in&>(a);
    inet_ntop(AF_INET, &v4.sin_addr, text, sizeof(text));
    port = ntohs(v4.sin_port);
  } else if (a.ss_family == AF_INET6) {
    const auto& v6 = reinterpret_cast<const sockaddr_in6&>(a);
    inet_ntop(AF_INET6, &v6.sin6_addr, text, sizeof(text));
    port = ntohs(v6.sin6_port);
  }
  return text;
}

}  // namespace

Result<std::unique_ptr<Door>> Door::bind(DoorOptions options) {
  std::string where = fmt::format("listen on {}:{}", options.host, options.port);
  const char* hint = "is the port in use (ss -ltnp) or the address not this host's? pick another with --listen";
  addrinfo want{.ai_flags = AI_PASSIVE, .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM};
  addrinfo* found = nullptr;
  if (int rc = getaddrinfo(options.host.c_str(), std::to_string(options.port).c_str(), &want, &found); rc != 0)
    return fail(fmt::format("{}: {}", where, gai_strerror(rc)), "", hint);
  std::unique_ptr<addrinfo, decltype(&freeaddrinfo)> owned(found, freeaddrinfo);
  std::unique_ptr<Door> d(new Door());
  d->options_ = std::move(options);
  int yes = 1;
  d->listen_fd_.reset(::socket(found->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (!d->listen_fd_.valid()) return sys_error(where, "", hint);
  ::setsockopt(d->listen_fd_.get(), SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
  if (::bind(d->listen_fd_.get(), found->ai_addr, found->ai_addrlen) != 0 || ::listen(d->listen_fd_.get(), 128) != 0)
    return sys_error(where, "", hint);
  sockaddr_storage self{};
  socklen_t len = sizeof(self);
  ::getsockname(d->listen_fd_.get(), reinterpret_cast<sockaddr*>(&self), &len);
  address_of(self, d->port_);
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_NONBLOCK | O_CLOEXEC) != 0) return sys_error("make the exporter's stop pipe");
  d->wake_read_.reset(pipe_fds[0]);
  d->wake_write_.reset(pipe_fds[1]);
  return d;
}

Door::~Door() = default;

void Door::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  char byte = 1;
  (void)!::write(wake_write_.get(), &byte, 1);
}

void Door::release(const std::string& peer) {
  std::lock_guard lock(mutex_);
  forget(peer);
}

void Door::forget(const std::string& peer) {
  --open_;
  if (auto it = per_client_.find(peer); it != per_client_.end() && --it->second == 0) per_client_.erase(it);
}

// Closes the oldest connection still sending its head from `peer` when
// that address is at its bound, or the oldest of all when the door is full.
// Each is read once more first: one whose head has come in since (a
// scraper's, accepted in a burst of idle clients from its own address that
// open again as fast as they are closed) is handed on, not closed.
// False when no such one is waiting (all are being served).
bool Door::make_room(const std::string& peer, const std::function<void(Conn)>& ready) {
  for (;;) {
    size_t oldest = 0;
    {
      std::lock_guard lock(mutex_);
      auto mine = per_client_.find(peer);
      bool client_full = mine != per_client_.end() && mine->second >= options_.per_client;
      if (!client_full && open_ < options_.max_connections) return true;
      auto it = std::find_if(waiting_.begin(), waiting_.end(),
                             [&](const Conn& c) { return !client_full || c.peer == peer; });
      if (it == waiting_.end()) return false;
      oldest = size_t(it - waiting_.begin());
    }
    size_t before = waiting_.size();
    read_head(oldest, ready);  // without mutex_: it may release()
    if (waiting_.size() != before) continue;  // handed on or dropped: look again
    std::lock_guard lock(mutex_);
    forget(waiting_[oldest].peer);
    waiting_.erase(waiting_.begin() + long(oldest));
    return true;
  }
}

void Door::accept_all(uint64_t now, const std::function<void(Conn)>& ready) {
  for (;;) {
    sockaddr_storage from{};
    socklen_t len = sizeof(from);
    Fd fd(::accept4(listen_fd_.get(), reinterpret_cast<sockaddr*>(&from), &len, SOCK_NONBLOCK | SOCK_CLOEXEC));
    if (!fd.valid()) {
      // Out of descriptors (EMFILE, ENFILE, ENOBUFS, ENOMEM): the pending
      // connection keeps the socket readable, so polling it again at once
      // would spin; accept again after a pause. EAGAIN: none left.
      if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR && errno != ECONNABORTED)
        accept_again_ns_ = now + kAcceptPauseNs;
      return;
    }
    Conn c{.fd = std::move(fd), .deadline_ns = now + options_.timeout_ns};
    c.peer = address_of(from, c.peer_port);
    if (!make_room(c.peer, ready)) continue;  // closed: every place is being served
    {
      std::lock_guard lock(mutex_);
      ++open_;
      ++per_client_[c.peer];
    }
    waiting_.push_back(std::move(c));
    // A client that sent its request with the connection, as a scraper
    // does, is handed on at once.
    read_head(waiting_.size() - 1, ready);
  }
}

// Reads what arrived; hands the connection on when its head is complete,
// closes it when the client closed, failed or sent a head too long.
void Door::read_head(size_t i, const std::function<void(Conn)>& ready) {
  Conn& c = waiting_[i];
  char buf[4096];
  ssize_t n = ::recv(c.fd.get(), buf, std::min(sizeof(buf), options_.max_head + 4 - c.bytes.size()), 0);
  if (n < 0 && (errno == EAGAIN || errno == EINTR)) return;
  bool done = false, drop = n <= 0;
  if (n > 0) {
    size_t from = c.bytes.size() > 3 ? c.bytes.size() - 3 : 0;
    c.bytes.append(buf, size_t(n));
    done = c.bytes.find("\r\n\r\n", from) != std::string::npos || c.bytes.find("\n\n", from) != std::string::npos;
    drop = !done && c.bytes.size() >= options_.max_head;
  }
  if (done) {
    Conn handed = std::move(c);
    waiting_.erase(waiting_.begin() + long(i));
    ready(std::move(handed));
  } else if (drop) {
    std::string peer = c.peer;
    waiting_.erase(waiting_.begin() + long(i));
    release(peer);
  }
}

void Door::run(const std::function<void(Conn)>& ready) {
  std::vector<pollfd> fds;
  for (;;) {
    {
      std::lock_guard lock(mutex_);
      if (stopping_) break;
    }
    uint64_t now = now_ns();
    // Past their deadline: closed.
    for (size_t i = waiting_.size(); i-- > 0;) {
      if (waiting_[i].deadline_ns > now) continue;
      std::string peer = waiting_[i].peer;
      waiting_.erase(waiting_.begin() + long(i));
      release(peer);
    }
    int wait_ms = 1000;
    for (const Conn& c : waiting_) wait_ms = std::min<int>(wait_ms, int((c.deadline_ns - now) / 1'000'000) + 1);
    bool accepting = now >= accept_again_ns_;
    if (!accepting) wait_ms = std::min<int>(wait_ms, int((accept_again_ns_ - now) / 1'000'000) + 1);
    fds.assign({{listen_fd_.get(), short(accepting ? POLLIN : 0), 0}, {wake_read_.get(), POLLIN, 0}});
    for (const Conn& c : waiting_) fds.push_back({c.fd.get(), POLLIN, 0});
    if (::poll(fds.data(), fds.size(), wait_ms) < 0) continue;  // EINTR
    now = now_ns();
    // Heads first, from the last so erasing keeps the indices below valid.
    for (size_t i = waiting_.size(); i-- > 0;)
      if (fds[i + 2].revents) read_head(i, ready);
    if (fds[0].revents & POLLIN) accept_all(now, ready);
  }
  std::lock_guard lock(mutex_);
  for (const Conn& c : waiting_) forget(c.peer);
  waiting_.clear();
}

}  // namespace cgmem::exporter
