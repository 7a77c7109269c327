// The exporter's front door: it accepts connections and holds each one,
// without a thread, until its whole request head (up to the blank line) has
// arrived; only then is the connection handed on, to be served at once.
//
// Why not cpp-httplib's own accept loop: it gives every accepted connection
// to a worker thread, which then waits for the client to speak (up to its
// keep-alive timeout, 5 s, then the read timeout for each read). 23 idle
// TCP connections held its 4 workers and queue, and a scrape waited 14.9 s,
// past Prometheus' default timeout of 10 s; a client sending a byte every
// few seconds held a worker for minutes. httplib (0.11) has no bound on
// connections per client and no deadline for a whole request. One poll loop
// that reads heads itself is the simplest thing that bounds all of it:
//
//  - No thread waits for a client: a worker gets a connection whose request
//    is already in, and writes the response under one deadline.
//  - Each connection has one deadline from its accept (ServerOptions::
//    timeout_s) for its whole life: head, body and response. A slow client
//    cannot stretch it a byte at a time.
//  - At most max_connections open, at most per_client from one address.
//    When a new connection would pass either bound, the oldest connection
//    still sending its head (from that address, or any) is closed to make
//    room, so a crowd of idle sockets cannot keep a scraper out; the
//    scraper's own connection sends its request at once and is handed on.
//    When every open one is being served, the new one is closed.
//  - A head is at most max_head bytes, so the door holds at most
//    max_connections * max_head bytes.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "common/error.h"
#include "common/fd.h"

namespace cgmem::exporter {

struct DoorOptions {
  std::string host;                // an address or a name
  int port = 0;                    // 0: any free port
  size_t max_connections = 128;
  size_t per_client = 16;
  uint64_t timeout_ns = 10'000'000'000;
  size_t max_head = 8192;
};

// A connection: while waiting, its head so far; handed on, its whole head.
struct Conn {
  Fd fd;                   // non-blocking
  std::string bytes;       // what was read: the head, and any bytes after it
  std::string peer;        // the client's address (the per-client bound's key)
  int peer_port = 0;
  uint64_t deadline_ns = 0;
};

class Door {
 public:
  // Binds and listens (SO_REUSEADDR, not SO_REUSEPORT: a port another
  // process listens on is an error). Errors name the address.
  static Result<std::unique_ptr<Door>> bind(DoorOptions options);
  ~Door();
  int port() const { return port_; }
  int listen_fd() const { return listen_fd_.get(); }

  // Until stop(): accepts, reads heads, and calls ready() with each
  // connection whose head is complete (from this thread; ready must not wait).
  void run(const std::function<void(Conn)>& ready);
  // From any thread: run() returns soon after.
  void stop();
  // From any thread: a connection handed on is closed, its place is free.
  void release(const std::string& peer);

 private:
  Door() = default;
  void accept_all(uint64_t now, const std::function<void(Conn)>& ready);
  bool make_room(const std::string& peer, const std::function<void(Conn)>& ready);
  void read_head(size_t i, const std::function<void(Conn)>& ready);
  void forget(const std::string& peer);  // mutex_ held

  DoorOptions options_;
  Fd listen_fd_;
  Fd wake_read_, wake_write_;  // stop() writes a byte
  int port_ = 0;
  std::vector<Conn> waiting_;     // heads still coming in, oldest first
  std::mutex mutex_;              // guards the counts: release() comes from workers
  size_t open_ = 0;
  std::map<std::string, size_t> per_client_;
  bool stopping_ = false;
  uint64_t accept_again_ns_ = 0;  // out of descriptors: not accepting until then
};

}  // namespace cgmem::exporter
