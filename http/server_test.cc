// MhdServer over real loopback sockets.

#include "http/server.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

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
    auto server = MhdServer::Start(std::move(options), router_);
    EXPECT_TRUE(server.ok()) << server.status();
    return server.ok() ? std::move(server).value() : nullptr;
  }

  Router router_;
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
