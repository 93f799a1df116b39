#include "http/server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstring>

namespace edgemond::http {

#if MHD_VERSION >= 0x00097002
using MhdResult = MHD_Result;
#else
using MhdResult = int;
#endif

struct MhdServer::Context {
  const Router* router;  // Not owned; outlives the server.
  std::size_t max_body_bytes;
  ConnectionGuard guard;

  Context(const Router* r, std::size_t body_limit, unsigned max_connections,
          unsigned max_per_address, std::chrono::milliseconds read_timeout,
          ConnectionCounters* counters)
      : router(r),
        max_body_bytes(body_limit),
        guard(max_connections, max_per_address, read_timeout, counters) {}
};

namespace {

// Per-request state, created on the first callback and freed by RequestCompleted.
struct RequestState {
  std::string body;
  bool body_too_large = false;
};

MhdResult CollectValue(void* cls, MHD_ValueKind /*kind*/, const char* key, const char* value) {
  auto* out = static_cast<std::vector<std::pair<std::string, std::string>>*>(cls);
  out->emplace_back(key != nullptr ? key : "", value != nullptr ? value : "");
  return MHD_YES;
}

MhdResult Queue(MHD_Connection* connection, const Response& response) {
  MHD_Response* mhd = MHD_create_response_from_buffer(
      response.body.size(), const_cast<char*>(response.body.data()), MHD_RESPMEM_MUST_COPY);
  if (mhd == nullptr) return MHD_NO;
  if (!response.content_type.empty()) {
    MHD_add_response_header(mhd, MHD_HTTP_HEADER_CONTENT_TYPE, response.content_type.c_str());
  }
  for (const auto& [name, value] : response.headers) {
    MHD_add_response_header(mhd, name.c_str(), value.c_str());
  }
  const MhdResult result =
      MHD_queue_response(connection, static_cast<unsigned>(response.status), mhd);
  MHD_destroy_response(mhd);
  return result;
}

MhdResult HandleRequest(void* cls, MHD_Connection* connection, const char* url, const char* method,
                        const char* /*version*/, const char* upload_data, size_t* upload_data_size,
                        void** request_state) noexcept {
  auto* context = static_cast<MhdServer::Context*>(cls);
  if (*request_state == nullptr) {
    // First call: only the headers are known. MHD calls again with the body, then once more.
    *request_state = new (std::nothrow) RequestState();
    return *request_state != nullptr ? MHD_YES : MHD_NO;
  }
  auto* state = static_cast<RequestState*>(*request_state);
  if (*upload_data_size > 0) {
    if (state->body.size() + *upload_data_size > context->max_body_bytes) {
      state->body_too_large = true;
    } else {
      state->body.append(upload_data, *upload_data_size);
    }
    *upload_data_size = 0;
    return MHD_YES;
  }
  context->guard.RequestReceived(connection);
  if (state->body_too_large) {
    return Queue(connection, JsonError(413, "body_too_large",
                                       "request body exceeds " +
                                           std::to_string(context->max_body_bytes) + " bytes"));
  }

  Request request;
  request.method = method;
  request.path = url;
  request.body = std::move(state->body);
  MHD_get_connection_values(connection, MHD_GET_ARGUMENT_KIND, CollectValue, &request.query);
  MHD_get_connection_values(connection, MHD_HEADER_KIND, CollectValue, &request.headers);
  for (auto& [name, value] : request.headers) {
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  // Handlers return errors as values; nothing below throws on purpose, but a bad_alloc must
  // become a 500 rather than terminate the daemon from a C callback.
  try {
    return Queue(connection, context->router->Dispatch(std::move(request)));
  } catch (...) {
    return Queue(connection, JsonError(500, "internal", "out of memory serving the request"));
  }
}

void RequestCompleted(void* cls, MHD_Connection* connection, void** request_state,
                      MHD_RequestTerminationCode /*code*/) noexcept {
  delete static_cast<RequestState*>(*request_state);
  *request_state = nullptr;
  static_cast<MhdServer::Context*>(cls)->guard.ResponseDone(connection);
}

// The address part of a client's sockaddr: equal for every connection of one client.
std::string AddressOf(const sockaddr* address) {
  if (address == nullptr) return "";
  if (address->sa_family == AF_INET6) {
    const auto* v6 = reinterpret_cast<const sockaddr_in6*>(address);
    return std::string(reinterpret_cast<const char*>(&v6->sin6_addr), sizeof(v6->sin6_addr));
  }
  if (address->sa_family == AF_INET) {
    const auto* v4 = reinterpret_cast<const sockaddr_in*>(address);
    return std::string(reinterpret_cast<const char*>(&v4->sin_addr), sizeof(v4->sin_addr));
  }
  return "";
}

// MHD closes a connection's socket only after notifying its end, so the guard never touches a
// descriptor that was closed and reused.
void ConnectionChanged(void* cls, MHD_Connection* connection, void** /*socket_context*/,
                       MHD_ConnectionNotificationCode code) noexcept {
  ConnectionGuard& guard = static_cast<MhdServer::Context*>(cls)->guard;
  if (code == MHD_CONNECTION_NOTIFY_CLOSED) {
    guard.Closed(connection);
    return;
  }
  const MHD_ConnectionInfo* fd =
      MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
  const MHD_ConnectionInfo* peer =
      MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
  if (fd == nullptr) return;
  guard.Opened(connection, fd->connect_fd, peer != nullptr ? AddressOf(peer->client_addr) : "");
}

Result<UniqueFd> BindListenSocket(const ListenAddress& address, const std::string& text) {
  sockaddr_storage storage{};
  socklen_t length = 0;
  int family;
  if (address.host.find(':') != std::string::npos) {
    auto* v6 = reinterpret_cast<sockaddr_in6*>(&storage);
    v6->sin6_family = AF_INET6;
    v6->sin6_port = htons(address.port);
    if (::inet_pton(AF_INET6, address.host.c_str(), &v6->sin6_addr) != 1) {
      return Status::InvalidArgument("listen address " + text + ": not an IPv6 address");
    }
    family = AF_INET6;
    length = sizeof(sockaddr_in6);
  } else {
    auto* v4 = reinterpret_cast<sockaddr_in*>(&storage);
    v4->sin_family = AF_INET;
    v4->sin_port = htons(address.port);
    const std::string host = address.host == "localhost" ? "127.0.0.1" : address.host;
    if (::inet_pton(AF_INET, host.c_str(), &v4->sin_addr) != 1) {
      return Status::InvalidArgument("listen address " + text +
                                     ": not an IPv4 address (use a numeric address)");
    }
    family = AF_INET;
    length = sizeof(sockaddr_in);
  }
  UniqueFd fd(::socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!fd) return Status::FromErrno(errno, "socket for " + text);
  const int one = 1;
  (void)::setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  if (family == AF_INET6)
    (void)::setsockopt(fd.get(), IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
  if (::bind(fd.get(), reinterpret_cast<sockaddr*>(&storage), length) != 0) {
    return Status::FromErrno(errno, "cannot listen on " + text);
  }
  if (::listen(fd.get(), 64) != 0) return Status::FromErrno(errno, "listen on " + text);
  return fd;
}

std::uint16_t BoundPort(int fd) {
  sockaddr_storage storage{};
  socklen_t length = sizeof(storage);
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&storage), &length) != 0) return 0;
  if (storage.ss_family == AF_INET6) {
    return ntohs(reinterpret_cast<sockaddr_in6*>(&storage)->sin6_port);
  }
  return ntohs(reinterpret_cast<sockaddr_in*>(&storage)->sin_port);
}

std::string BoundHost(int fd) {
  sockaddr_storage storage{};
  socklen_t length = sizeof(storage);
  char text[INET6_ADDRSTRLEN] = {};
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&storage), &length) != 0) return "";
  if (storage.ss_family == AF_INET6) {
    ::inet_ntop(AF_INET6, &reinterpret_cast<sockaddr_in6*>(&storage)->sin6_addr, text,
                sizeof(text));
  } else {
    ::inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(&storage)->sin_addr, text, sizeof(text));
  }
  return text;
}

}  // namespace

Result<ListenAddress> ParseListenAddress(std::string_view text) {
  const auto bad = [&](std::string_view why) {
    return Status::InvalidArgument("listen address \"" + std::string(text) + "\": " +
                                   std::string(why) + " (expected HOST:PORT, e.g. 127.0.0.1:8867)");
  };
  ListenAddress address;
  std::string_view port_text;
  if (!text.empty() && text.front() == '[') {
    const std::size_t close = text.find(']');
    if (close == std::string_view::npos || close + 1 >= text.size() || text[close + 1] != ':') {
      return bad("IPv6 addresses are written [addr]:port");
    }
    address.host = std::string(text.substr(1, close - 1));
    port_text = text.substr(close + 2);
  } else {
    const std::size_t colon = text.rfind(':');
    if (colon == std::string_view::npos) return bad("missing port");
    address.host = std::string(text.substr(0, colon));
    port_text = text.substr(colon + 1);
  }
  if (address.host.empty()) return bad("missing host");
  unsigned port = 0;
  const auto [end, error] =
      std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (port_text.empty() || error != std::errc() || end != port_text.data() + port_text.size() ||
      port > 65535) {
    return bad("port must be a number from 0 to 65535");
  }
  address.port = static_cast<std::uint16_t>(port);
  return address;
}

MhdServer::MhdServer(std::unique_ptr<Context> context, MHD_Daemon* daemon, std::string host,
                     std::uint16_t port)
    : context_(std::move(context)), daemon_(daemon), host_(std::move(host)), port_(port) {}

MhdServer::~MhdServer() {
  if (daemon_ == nullptr) return;
  // Quiesce first: MHD then stops using the listening socket and hands it back, and
  // MHD_stop_daemon neither shuts it down (which would end listening for every descriptor of it,
  // a replacement server's included) nor closes it. We close our descriptor ourselves.
  const MHD_socket listen_fd = MHD_quiesce_daemon(daemon_);
  MHD_stop_daemon(daemon_);
  if (listen_fd != MHD_INVALID_SOCKET) ::close(listen_fd);
}

Result<std::unique_ptr<MhdServer>> MhdServer::Start(ServerOptions options, const Router& router) {
  UniqueFd fd = std::move(options.listen_fd);
  if (!fd) {
    EDGEMOND_ASSIGN_OR_RETURN(const ListenAddress address, ParseListenAddress(options.listen));
    EDGEMOND_ASSIGN_OR_RETURN(fd, BindListenSocket(address, options.listen));
  }
  const std::uint16_t port = BoundPort(fd.get());
  const std::string host = BoundHost(fd.get());

  auto context = std::make_unique<Context>(&router, options.max_body_bytes, options.max_connections,
                                           options.max_connections_per_ip, options.read_timeout,
                                           options.counters);
  // Beyond the guard's limit, and no per-address limit of MHD's (the guard has it), so that a
  // connection over a limit is accepted and makes the guard evict the one waiting longest,
  // instead of being refused by MHD while slow clients hold the slots.
  const unsigned mhd_connection_limit =
      options.max_connections + std::max(8u, options.max_connections / 4);
  // MHD_USE_ITC: MHD_quiesce_daemon needs it with internal threads.
  const unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO | MHD_USE_ITC;
  MHD_Daemon* daemon = MHD_start_daemon(
      flags, /*port=*/0, /*apc=*/nullptr, /*apc_cls=*/nullptr, &HandleRequest, context.get(),
      MHD_OPTION_LISTEN_SOCKET, fd.get(), MHD_OPTION_NOTIFY_COMPLETED, &RequestCompleted,
      context.get(), MHD_OPTION_NOTIFY_CONNECTION, &ConnectionChanged, context.get(),
      MHD_OPTION_CONNECTION_LIMIT, mhd_connection_limit, MHD_OPTION_CONNECTION_TIMEOUT,
      static_cast<unsigned>(options.connection_timeout.count()), MHD_OPTION_CONNECTION_MEMORY_LIMIT,
      options.max_header_bytes, MHD_OPTION_THREAD_POOL_SIZE, options.threads, MHD_OPTION_END);
  if (daemon == nullptr) {
    return Status::Internal("libmicrohttpd failed to start on " + options.listen);
  }
  (void)fd.release();  // MHD owns the listening socket now and closes it in MHD_stop_daemon.
  return std::unique_ptr<MhdServer>(new MhdServer(std::move(context), daemon, host, port));
}

Result<UniqueFd> MhdServer::DuplicateListenSocket() const {
  const MHD_DaemonInfo* info = MHD_get_daemon_info(daemon_, MHD_DAEMON_INFO_LISTEN_FD);
  if (info == nullptr || info->listen_fd < 0) {
    return Status::FailedPrecondition("the HTTP server has no listening socket");
  }
  UniqueFd fd(::fcntl(info->listen_fd, F_DUPFD_CLOEXEC, 3));
  if (!fd) return Status::FromErrno(errno, "duplicating the HTTP listening socket");
  return fd;
}

ConnectionGuard::Counts MhdServer::guard_counts() const { return context_->guard.counts(); }

std::string MhdServer::url() const {
  const bool v6 = host_.find(':') != std::string::npos;
  return "http://" + (v6 ? "[" + host_ + "]" : host_) + ":" + std::to_string(port_);
}

}  // namespace edgemond::http
