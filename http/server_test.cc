// MhdServer over real loopback sockets.

#include "http/server.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>

#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/unique_fd.h"
#include "tests/testing/http_client.h"

namespace edgemond::http {
namespace {

using testing::HttpGet;
using testing::HttpRequest;

class ServerTest : public ::testing::Test {
 protected:
  ServerTest() : router_({.bearer_token = "t0ken", .cors_allow_origins = {}}) {
    router_.Add("GET", "/echo", "echo", [](const Request& request) {
      Response response;
      response.content_type = "text/plain";
      response.body = request.path;
      for (const auto& [k, v] : request.query) response.body += "|" + k + "=" + v;
      if (auto agent = request.Header("x-test")) response.body += "|x-test=" + std::string(*agent);
      return response;
    });
    router_.Add("POST", "/upload", "upload", [](const Request& request) {
      Response response;
      response.body = std::to_string(request.body.size());
      return response;
    });
  }

  std::unique_ptr<MhdServer> Start(ServerOptions options = {}) {
    options.listen = "127.0.0.1:0";
    options.counters = &counters_;
    auto server = MhdServer::Start(std::move(options), router_);
    EXPECT_TRUE(server.ok()) << server.status();
    return server.ok() ? std::move(server).value() : nullptr;
  }

  Router router_;
  ConnectionCounters counters_;  // Outlives the servers the tests start.
};

TEST_F(ServerTest, ServesOverLoopbackOnAnEphemeralPort) {
  auto server = Start();
  ASSERT_NE(server, nullptr);
  ASSERT_NE(server->port(), 0);
  EXPECT_EQ(server->url(), "http://127.0.0.1:" + std::to_string(server->port()));
  const auto reply = HttpRequest("127.0.0.1", server->port(), "GET",
                                 "/echo?series=m%7Bcpu%3D%22all%22%7D&x=1", {"X-Test: yes"});
  EXPECT_EQ(reply.status, 200) << reply.error;
  EXPECT_EQ(reply.body, "/echo|series=m{cpu=\"all\"}|x=1|x-test=yes");
  EXPECT_EQ(reply.headers.at("content-type"), "text/plain");
}

TEST_F(ServerTest, AReplacementServerTakesOverTheSameSocket) {
  auto first = Start();
  ASSERT_NE(first, nullptr);
  const std::uint16_t port = first->port();
  auto fd = first->DuplicateListenSocket();
  ASSERT_TRUE(fd.ok()) << fd.status();
  ServerOptions options;
  options.listen_fd = std::move(fd).value();
  auto second = MhdServer::Start(std::move(options), router_);
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_EQ((*second)->port(), port);
  first.reset();  // Stops the first server; the socket stays open through the duplicate.
  EXPECT_EQ(HttpGet(port, "/echo").status, 200);
}

TEST_F(ServerTest, ErrorsAreJson) {
  auto server = Start();
  ASSERT_NE(server, nullptr);
  const auto reply = HttpGet(server->port(), "/missing");
  EXPECT_EQ(reply.status, 404);
  EXPECT_EQ(reply.headers.at("content-type"), "application/json; charset=utf-8");
  EXPECT_EQ(nlohmann::json::parse(reply.body)["status"], "error");
}

TEST_F(ServerTest, MutatingRequestsNeedTheToken) {
  auto server = Start();
  ASSERT_NE(server, nullptr);
  EXPECT_EQ(HttpRequest("127.0.0.1", server->port(), "POST", "/upload", {}, "abc").status, 401);
  const auto reply = HttpRequest("127.0.0.1", server->port(), "POST", "/upload",
                                 {"Authorization: Bearer t0ken"}, "abc");
  EXPECT_EQ(reply.status, 200);
  EXPECT_EQ(reply.body, "3");
}

TEST_F(ServerTest, BodiesAboveTheLimitGet413) {
  ServerOptions options;
  options.max_body_bytes = 100;
  auto server = Start(std::move(options));
  ASSERT_NE(server, nullptr);
  const auto reply = HttpRequest("127.0.0.1", server->port(), "POST", "/upload",
                                 {"Authorization: Bearer t0ken"}, std::string(1000, 'x'));
  EXPECT_EQ(reply.status, 413);
}

TEST_F(ServerTest, OversizedUrlsAreRefused) {
  ServerOptions options;
  options.max_header_bytes = 4096;
  auto server = Start(std::move(options));
  ASSERT_NE(server, nullptr);
  const auto reply = HttpGet(server->port(), "/echo?x=" + std::string(10000, 'a'));
  EXPECT_GE(reply.status, 400) << reply.error;
  EXPECT_LT(reply.status, 500);
}

// A raw loopback connection, for clients that misbehave in ways HttpRequest cannot.
class RawConnection {
 public:
  // From `source` (any 127.x.y.z address is this host), to the server's port.
  RawConnection(std::uint16_t port, const char* source = "127.0.0.1")
      : fd_(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) {
    sockaddr_in from{};
    from.sin_family = AF_INET;
    ::inet_pton(AF_INET, source, &from.sin_addr);
    EXPECT_EQ(::bind(fd_.get(), reinterpret_cast<sockaddr*>(&from), sizeof(from)), 0);
    sockaddr_in to{};
    to.sin_family = AF_INET;
    to.sin_port = htons(port);
    ::inet_pton(AF_INET, "127.0.0.1", &to.sin_addr);
    connected_ = ::connect(fd_.get(), reinterpret_cast<sockaddr*>(&to), sizeof(to)) == 0;
  }

  bool connected() const { return connected_; }
  bool Send(std::string_view bytes) {
    return ::send(fd_.get(), bytes.data(), bytes.size(), MSG_NOSIGNAL) ==
           static_cast<ssize_t>(bytes.size());
  }
  // Everything the server sends until it closes the connection or `timeout` passes; `closed`
  // says which.
  std::string ReadUntilClosed(std::chrono::milliseconds timeout, bool& closed) {
    std::string out;
    closed = false;
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
      pollfd p{fd_.get(), POLLIN, 0};
      if (::poll(&p, 1, 20) <= 0) continue;
      char buffer[65536];
      const ssize_t n = ::recv(fd_.get(), buffer, sizeof(buffer), 0);
      if (n <= 0) {
        closed = true;
        break;
      }
      out.append(buffer, static_cast<std::size_t>(n));
    }
    return out;
  }

 private:
  UniqueFd fd_;
  bool connected_ = false;
};

std::size_t Count(std::string_view text, std::string_view what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string_view::npos;
       at = text.find(what, at + what.size())) {
    ++n;
  }
  return n;
}

TEST_F(ServerTest, AClientSendingAByteAtATimeIsClosedAtTheReadDeadline) {
  ServerOptions options;
  options.read_timeout = std::chrono::milliseconds(600);
  auto server = Start(std::move(options));
  ASSERT_NE(server, nullptr);
  RawConnection slow(server->port());
  ASSERT_TRUE(slow.connected());
  // A byte every 100 ms keeps the inactivity timeout (10 s) from ever firing.
  const std::string request = "GET /echo HTTP/1.1\r\nHost: x\r\nX-Padding: aaaaaaaaaaaaaaaaaaaa";
  const auto start = std::chrono::steady_clock::now();
  bool closed = false;
  for (char c : request) {
    if (!slow.Send(std::string_view(&c, 1))) break;
    slow.ReadUntilClosed(std::chrono::milliseconds(100), closed);
    if (closed) break;
  }
  if (!closed) slow.ReadUntilClosed(std::chrono::seconds(5), closed);
  const auto took = std::chrono::steady_clock::now() - start;
  EXPECT_TRUE(closed);
  EXPECT_GE(took, std::chrono::milliseconds(600));
  EXPECT_LT(took, std::chrono::seconds(3));
  EXPECT_EQ(server->guard_counts().timed_out, 1u);
  EXPECT_EQ(counters_.timed_out.load(), 1u);  // What /metrics reports.
}

TEST_F(ServerTest, SlowClientsOnEverySlotDoNotLockOthersOut) {
  ServerOptions options;
  options.max_connections = 8;
  options.read_timeout = std::chrono::seconds(30);  // Far beyond the test: eviction must do it.
  auto server = Start(std::move(options));
  ASSERT_NE(server, nullptr);
  // Eight clients from two other addresses, each with half a request line.
  std::vector<std::unique_ptr<RawConnection>> slow;
  for (int i = 0; i < 8; ++i) {
    slow.push_back(
        std::make_unique<RawConnection>(server->port(), i % 2 ? "127.0.0.2" : "127.0.0.3"));
    ASSERT_TRUE(slow.back()->connected());
    ASSERT_TRUE(slow.back()->Send("GET /echo HT"));
  }
  // A well-behaved request gets a slot at once, by closing the client that has waited longest,
  // even while more slow clients keep coming.
  for (int i = 0; i < 4; ++i) {
    slow.push_back(std::make_unique<RawConnection>(server->port(), "127.0.0.2"));
    ASSERT_TRUE(slow.back()->Send("GET /echo HT"));
    const auto start = std::chrono::steady_clock::now();
    const auto reply = HttpGet(server->port(), "/echo");
    EXPECT_EQ(reply.status, 200) << reply.error;
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
  }
  EXPECT_GE(server->guard_counts().evicted, 4u);
  EXPECT_EQ(server->guard_counts().timed_out, 0u);
  // The longest waiting went: the first eight, which MHD's two threads may have seen opening in
  // either order, but each before any client that came after a served request.
  std::size_t first_closed = 0;
  bool closed = false;
  for (std::size_t i = 0; i < 8; ++i) {
    slow[i]->ReadUntilClosed(std::chrono::milliseconds(200), closed);
    first_closed += closed ? 1 : 0;
  }
  EXPECT_EQ(first_closed, server->guard_counts().evicted);
  slow.back()->ReadUntilClosed(std::chrono::milliseconds(100), closed);
  EXPECT_FALSE(closed);  // The newest is still there.
}

TEST_F(ServerTest, SlowClientsAtTheAddressLimitMakeRoomForTheirNeighbour) {
  ServerOptions options;
  options.max_connections_per_ip = 4;
  options.read_timeout = std::chrono::seconds(30);
  auto server = Start(std::move(options));
  ASSERT_NE(server, nullptr);
  // Four slow clients on this address (a local scanner), four on another.
  std::vector<std::unique_ptr<RawConnection>> here, there;
  for (int i = 0; i < 4; ++i) {
    here.push_back(std::make_unique<RawConnection>(server->port(), "127.0.0.1"));
    there.push_back(std::make_unique<RawConnection>(server->port(), "127.0.0.2"));
    ASSERT_TRUE(here.back()->Send("GET /echo HT"));
    ASSERT_TRUE(there.back()->Send("GET /echo HT"));
  }
  // A health check from this address is served at once, at the cost of this address's oldest.
  const auto reply = HttpGet(server->port(), "/echo");
  EXPECT_EQ(reply.status, 200) << reply.error;
  EXPECT_EQ(server->guard_counts().evicted, 1u);
  // One of this address's four (whichever MHD's threads saw open first) went.
  std::size_t here_closed = 0;
  bool closed = false;
  for (auto& mine : here) {
    mine->ReadUntilClosed(std::chrono::milliseconds(200), closed);
    here_closed += closed ? 1 : 0;
  }
  EXPECT_EQ(here_closed, 1u);
  for (auto& other : there) {
    other->ReadUntilClosed(std::chrono::milliseconds(50), closed);
    EXPECT_FALSE(closed);  // Another address's connections are not its to take.
  }
}

TEST_F(ServerTest, ThirtyTwoConnectionsFromOneAddressAreAllServed) {
  auto server = Start();
  ASSERT_NE(server, nullptr);
  std::vector<std::unique_ptr<RawConnection>> clients;
  for (int i = 0; i < 32; ++i) {
    clients.push_back(std::make_unique<RawConnection>(server->port()));
    ASSERT_TRUE(clients.back()->connected());
  }
  for (auto& client : clients) {
    ASSERT_TRUE(client->Send("GET /echo HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"));
  }
  for (auto& client : clients) {
    bool closed = false;
    const std::string reply = client->ReadUntilClosed(std::chrono::seconds(5), closed);
    EXPECT_EQ(reply.rfind("HTTP/1.1 200", 0), 0u) << reply;
  }
}

TEST_F(ServerTest, RequestsNoClientShouldSendGetA4xxOrAClosedConnection) {
  ServerOptions options;
  options.read_timeout = std::chrono::seconds(1);
  auto server = Start(std::move(options));
  ASSERT_NE(server, nullptr);
  const auto refused = [&](const std::string& bytes, const char* what) {
    RawConnection client(server->port());
    ASSERT_TRUE(client.connected());
    (void)client.Send(bytes);  // The server may close before it has read everything.
    bool closed = false;
    const std::string reply = client.ReadUntilClosed(std::chrono::seconds(5), closed);
    EXPECT_TRUE(closed) << what;
    if (!reply.empty()) {
      EXPECT_EQ(reply.rfind("HTTP/1.1 4", 0), 0u) << what << ": " << reply.substr(0, 200);
    }
  };
  refused("GET /" + std::string(1 << 20, 'a') + " HTTP/1.1\r\nHost: x\r\n\r\n", "1 MB line");
  std::string headers = "GET /echo HTTP/1.1\r\nHost: x\r\n";
  for (int i = 0; i < 10000; ++i) headers += "X-" + std::to_string(i) + ": y\r\n";
  refused(headers + "\r\n", "10,000 headers");
  refused(
      "POST /upload HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer t0ken\r\n"
      "Transfer-Encoding: chunked\r\n\r\n10\r\n0123456789abcdef\r\n",
      "a chunked body without end");
  // Meanwhile the server answers everyone else.
  EXPECT_EQ(HttpGet(server->port(), "/echo").status, 200);
}

TEST_F(ServerTest, APipelinedBurstIsAnsweredInOrder) {
  auto server = Start();
  ASSERT_NE(server, nullptr);
  RawConnection client(server->port());
  ASSERT_TRUE(client.connected());
  std::string burst;
  for (int i = 0; i < 100; ++i) {
    burst += "GET /echo?i=" + std::to_string(i) + " HTTP/1.1\r\nHost: x\r\n\r\n";
  }
  burst += "GET /echo?i=last HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
  ASSERT_TRUE(client.Send(burst));
  bool closed = false;
  const std::string replies = client.ReadUntilClosed(std::chrono::seconds(10), closed);
  EXPECT_TRUE(closed);
  EXPECT_EQ(Count(replies, "HTTP/1.1 200"), 101u);
  // Each body is followed by the next response.
  std::size_t previous = 0;
  for (int i = 0; i < 100; ++i) {
    const std::size_t at = replies.find("/echo|i=" + std::to_string(i) + "HTTP/1.1 200");
    ASSERT_NE(at, std::string::npos) << i;
    EXPECT_GE(at, previous) << i;
    previous = at;
  }
  EXPECT_NE(replies.find("/echo|i=last"), std::string::npos);
}

TEST_F(ServerTest, APortInUseIsAClearError) {
  auto first = Start();
  ASSERT_NE(first, nullptr);
  ServerOptions options;
  options.listen = "127.0.0.1:" + std::to_string(first->port());
  auto second = MhdServer::Start(std::move(options), router_);
  ASSERT_FALSE(second.ok());
  EXPECT_NE(second.status().message().find("Address already in use"), std::string::npos)
      << second.status();
  EXPECT_NE(second.status().message().find(std::to_string(first->port())), std::string::npos);
}

TEST(ListenAddressTest, ParsesHostsAndPorts) {
  EXPECT_EQ(ParseListenAddress("127.0.0.1:8867")->host, "127.0.0.1");
  EXPECT_EQ(ParseListenAddress("127.0.0.1:8867")->port, 8867);
  EXPECT_EQ(ParseListenAddress("[::1]:9000")->host, "::1");
  EXPECT_EQ(ParseListenAddress("[::1]:9000")->port, 9000);
  for (const char* bad : {"", "8867", ":8867", "host:", "host:99999", "host:8x", "[::1]9000"}) {
    EXPECT_FALSE(ParseListenAddress(bad).ok()) << bad;
  }
}

TEST(ListenAddressTest, NamesBadHosts) {
  Router router({});
  ServerOptions options;
  options.listen = "not-an-address:0";
  auto server = MhdServer::Start(std::move(options), router);
  ASSERT_FALSE(server.ok());
  EXPECT_NE(server.status().message().find("not-an-address"), std::string::npos);
}

}  // namespace
}  // namespace edgemond::http
