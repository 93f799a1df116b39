#include "http/router.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace edgemond::http {
namespace {

Request Make(std::string method, std::string path) {
  Request request;
  request.method = std::move(method);
  request.path = std::move(path);
  return request;
}

Response Echo(const Request& request) {
  Response response;
  response.body = request.method + " " + request.path;
  for (const auto& [name, value] : request.path_params) response.body += " " + name + "=" + value;
  return response;
}

std::string HeaderValue(const Response& response, std::string_view name) {
  for (const auto& [key, value] : response.headers) {
    if (key == name) return value;
  }
  return "";
}

TEST(RouterTest, DispatchesByMethodAndPath) {
  Router router({});
  router.Add("GET", "/api/v1/series", "series", Echo);
  const Response response = router.Dispatch(Make("GET", "/api/v1/series"));
  EXPECT_EQ(response.status, 200);
  EXPECT_EQ(response.body, "GET /api/v1/series");
}

TEST(RouterTest, UnknownPathIsJson404) {
  Router router({});
  router.Add("GET", "/healthz", "healthz", Echo);
  const Response response = router.Dispatch(Make("GET", "/nope"));
  EXPECT_EQ(response.status, 404);
  EXPECT_EQ(response.content_type, kJsonContentType);
  const auto body = nlohmann::json::parse(response.body);
  EXPECT_EQ(body["status"], "error");
  EXPECT_EQ(body["error"]["code"], "not_found");
}

TEST(RouterTest, WrongMethodIs405WithAllow) {
  Router router({});
  router.Add("GET", "/metrics", "metrics", Echo);
  const Response response = router.Dispatch(Make("DELETE", "/metrics"));
  EXPECT_EQ(response.status, 405);
  EXPECT_EQ(HeaderValue(response, "Allow"), "GET, HEAD");
}

TEST(RouterTest, HeadIsServedWhereGetIs) {
  Router router({});
  router.Add("GET", "/metrics", "metrics", Echo);
  EXPECT_EQ(router.Dispatch(Make("HEAD", "/metrics")).status, 200);
}

TEST(RouterTest, CapturesPathParameters) {
  Router router({});
  router.Add("GET", "/api/v1/benchmarks/{model}", "benchmark", Echo);
  const Response response = router.Dispatch(Make("GET", "/api/v1/benchmarks/resnet18"));
  EXPECT_EQ(response.body, "GET /api/v1/benchmarks/resnet18 model=resnet18");
  EXPECT_EQ(router.Dispatch(Make("GET", "/api/v1/benchmarks")).status, 404);
}

TEST(RouterTest, MutatingRoutesRequireTheBearerTokenWhenConfigured) {
  Router router({.bearer_token = "s3cret", .cors_allow_origins = {}});
  router.Add("POST", "/api/v1/run", "run", Echo);
  router.Add("GET", "/api/v1/run", "run_status", Echo);
  Request anonymous = Make("POST", "/api/v1/run");
  Response response = router.Dispatch(anonymous);
  EXPECT_EQ(response.status, 401);
  EXPECT_EQ(HeaderValue(response, "WWW-Authenticate"), "Bearer");
  Request wrong = Make("POST", "/api/v1/run");
  wrong.headers.emplace_back("authorization", "Bearer s3cres");
  EXPECT_EQ(router.Dispatch(wrong).status, 401);
  Request prefix = Make("POST", "/api/v1/run");
  prefix.headers.emplace_back("authorization", "Bearer s3cret-and-more");
  EXPECT_EQ(router.Dispatch(prefix).status, 401);
  Request right = Make("POST", "/api/v1/run");
  right.headers.emplace_back("authorization", "Bearer s3cret");
  EXPECT_EQ(router.Dispatch(right).status, 200);
  // Reads stay open: the token guards what changes state.
  EXPECT_EQ(router.Dispatch(Make("GET", "/api/v1/run")).status, 200);
}

TEST(RouterTest, NoCorsHeadersUnlessTheOriginIsAllowed) {
  Router closed({});
  closed.Add("GET", "/metrics", "metrics", Echo);
  Request request = Make("GET", "/metrics");
  request.headers.emplace_back("origin", "http://evil.example");
  EXPECT_EQ(HeaderValue(closed.Dispatch(request), "Access-Control-Allow-Origin"), "");

  Router open({.bearer_token = "", .cors_allow_origins = {"http://grafana.local"}});
  open.Add("GET", "/metrics", "metrics", Echo);
  EXPECT_EQ(HeaderValue(open.Dispatch(request), "Access-Control-Allow-Origin"), "");
  Request allowed = Make("GET", "/metrics");
  allowed.headers.emplace_back("origin", "http://grafana.local");
  EXPECT_EQ(HeaderValue(open.Dispatch(allowed), "Access-Control-Allow-Origin"),
            "http://grafana.local");
}

TEST(RouterTest, CountsRequestsAndErrorsPerRoute) {
  Router router({});
  router.Add("GET", "/ok", "ok", Echo);
  router.Add("GET", "/bad", "bad", [](const Request&) { return JsonError(400, "x", "y"); });
  (void)router.Dispatch(Make("GET", "/ok"));
  (void)router.Dispatch(Make("GET", "/ok"));
  (void)router.Dispatch(Make("GET", "/bad"));
  const auto stats = router.Stats();
  ASSERT_EQ(stats.size(), 2u);
  EXPECT_EQ(stats[0].requests, 2u);
  EXPECT_EQ(stats[0].errors, 0u);
  EXPECT_EQ(stats[1].requests, 1u);
  EXPECT_EQ(stats[1].errors, 1u);
}

}  // namespace
}  // namespace edgemond::http
