// ConnectionGuard: keeps slow and idle clients from holding the HTTP server's connection slots,
// which would lock every other client out (slowloris: a client that sends a request a byte at a
// time, or half of one and then nothing, keeps an inactivity timeout from ever firing).
//
// Two rules, checked against the connections the server reports (MhdServer calls Opened,
// RequestReceived, ResponseDone and Closed):
//  - read deadline: a request (line, headers and body) must have arrived within `read_timeout` of
//    the connection opening or of the previous response being sent; a connection still waiting
//    then is shut down;
//  - eviction: a connection that would make more than `max_connections` open, or more than
//    `max_per_address` from its client address, shuts down the one (from that address, for the
//    second limit) that has been waiting for its request the longest (an idle keep-alive
//    connection or a slow client), itself if no other waits. A connection whose request is being
//    answered is never cut short, so a new client always gets a slot as long as the slots are not
//    all busy.
// "Shut down" is shutdown(2) on the socket: the server sees the peer gone and closes the
// connection itself, so the socket keeps one owner.
//
// Thread safety: every method may be called from any thread; a thread of its own enforces the
// deadline.

#ifndef EDGEMOND_HTTP_CONNECTION_GUARD_H_
#define EDGEMOND_HTTP_CONNECTION_GUARD_H_

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>

namespace edgemond::http {

// Connections shut down, summed over every guard that reports to it: the daemon keeps one for its
// lifetime, across the reloads that replace its server, for /metrics.
struct ConnectionCounters {
  std::atomic<std::uint64_t> timed_out{0};
  std::atomic<std::uint64_t> evicted{0};
};

class ConnectionGuard final {
 public:
  // `counters` (may be null; borrowed, outliving the guard) also counts what this guard shuts.
  ConnectionGuard(unsigned max_connections, unsigned max_per_address,
                  std::chrono::milliseconds read_timeout, ConnectionCounters* counters = nullptr);
  ~ConnectionGuard();
  ConnectionGuard(const ConnectionGuard&) = delete;
  ConnectionGuard& operator=(const ConnectionGuard&) = delete;

  // `connection` identifies a connection from Opened() to Closed(); `fd` is its socket, which
  // must stay open until Closed() returns; `address` its client's address (any bytes that are
  // equal for one client, such as the address part of its sockaddr).
  void Opened(const void* connection, int fd, std::string address);
  void RequestReceived(const void* connection);
  void ResponseDone(const void* connection);
  void Closed(const void* connection);

  struct Counts {
    std::uint64_t timed_out = 0;  // Shut down at the read deadline.
    std::uint64_t evicted = 0;    // Shut down to make room.
  };
  Counts counts() const;

 private:
  using SteadyClock = std::chrono::steady_clock;
  struct Connection {
    int fd = -1;
    std::string address;
    bool answering = false;           // Its request has arrived and is being answered.
    SteadyClock::time_point waiting;  // Since when it waits for a request (when !answering).
    bool shut_down = false;
  };

  void EnforceDeadlines();
  void ShutDown(Connection& connection);  // REQUIRES: mu_ held.
  // Shuts down the connection (other than `added`, unless none other waits) waiting longest among
  // those `among` accepts. REQUIRES: mu_ held.
  template <typename Among>
  void Evict(const void* added, Among among);

  const unsigned max_connections_;
  const unsigned max_per_address_;
  const std::chrono::milliseconds read_timeout_;
  mutable std::mutex mu_;
  std::condition_variable wake_;
  std::unordered_map<const void*, Connection> connections_;  // Guarded by mu_.
  Counts counts_;                                            // Guarded by mu_.
  ConnectionCounters* counters_;                             // Not owned; may be null.
  bool stopping_ = false;                                    // Guarded by mu_.
  std::thread reaper_;  // Last: starts once everything above exists.
};

}  // namespace edgemond::http

#endif  // EDGEMOND_HTTP_CONNECTION_GUARD_H_
