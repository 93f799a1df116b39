// MhdServer: the HTTP transport, a libmicrohttpd daemon that turns connections into Requests
// for a Router and queues the Responses. It knows nothing about edgemond's endpoints.
//
// Safe by default: a connection limit, a per-IP connection limit, an idle timeout per connection,
// a read deadline per request and eviction of the longest-waiting connection when every slot is
// taken (http/connection_guard.h: slow clients cannot lock others out), a bounded request
// header/URL size (libmicrohttpd answers 414/431 above the connection memory limit) and a bounded
// body size (413).
//
// Thread safety: the Router is called from the server's worker threads, concurrently; it must
// outlive the server. Start/Stop are not thread-safe; destruction stops the server.

#ifndef EDGEMOND_HTTP_SERVER_H_
#define EDGEMOND_HTTP_SERVER_H_

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "core/result.h"
#include "core/unique_fd.h"
#include "http/connection_guard.h"
#include "http/router.h"

struct MHD_Daemon;

namespace edgemond::http {

struct ServerOptions {
  // "127.0.0.1:8867", "[::1]:8867", "0.0.0.0:8867"; port 0 picks a free port (tests).
  std::string listen = "127.0.0.1:8867";
  // An already bound, listening socket (systemd socket activation); used instead of `listen`.
  UniqueFd listen_fd;
  unsigned max_connections = 256;
  // Also counts the connections the server shuts down (borrowed, outliving the server; may be
  // null): what /metrics reports, across servers.
  ConnectionCounters* counters = nullptr;
  unsigned max_connections_per_ip = 64;
  std::chrono::seconds connection_timeout{10};  // Inactivity.
  // A request (line, headers, body) must arrive within this time of the connection opening or of
  // the previous response.
  std::chrono::milliseconds read_timeout{std::chrono::seconds(5)};
  unsigned threads = 2;
  std::size_t max_header_bytes = 16 * 1024;  // Request line (URL) + headers.
  std::size_t max_body_bytes = 64 * 1024;
};

// Parses "host:port" / "[v6]:port" into host and port; errors name the text.
struct ListenAddress {
  std::string host;
  std::uint16_t port = 0;
};
Result<ListenAddress> ParseListenAddress(std::string_view text);

class MhdServer final {
 public:
  // Binds (or adopts options.listen_fd) and starts serving. A port in use or an address that
  // cannot be bound is an error naming the address and the reason.
  static Result<std::unique_ptr<MhdServer>> Start(ServerOptions options, const Router& router);

  ~MhdServer();
  MhdServer(const MhdServer&) = delete;
  MhdServer& operator=(const MhdServer&) = delete;

  std::uint16_t port() const { return port_; }
  // Connections shut down by the read deadline and to make room, since Start().
  ConnectionGuard::Counts guard_counts() const;
  // A new descriptor of the listening socket (close-on-exec), so that a replacement server can
  // take over the same bound socket (configuration reload, socket activation) while this one is
  // stopped. The socket stays open as long as either descriptor does.
  Result<UniqueFd> DuplicateListenSocket() const;
  // "http://127.0.0.1:8867" (IPv6 hosts in brackets); for logs and the quick start.
  std::string url() const;

  struct Context;  // What the libmicrohttpd callbacks see; defined in server.cc.

 private:
  MhdServer(std::unique_ptr<Context> context, MHD_Daemon* daemon, std::string host,
            std::uint16_t port);

  std::unique_ptr<Context> context_;  // Shared with the MHD callbacks; outlives daemon_.
  MHD_Daemon* daemon_;                // Owned; stopped in the destructor.
  std::string host_;
  std::uint16_t port_;
};

}  // namespace edgemond::http

#endif  // EDGEMOND_HTTP_SERVER_H_
