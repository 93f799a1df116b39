// Router: maps (method, path) to a handler, in the manner of journal-gatewayd's request_handler:
// plain string matching, small handlers. Patterns may contain `{name}` segments
// ("/api/v1/benchmarks/{model}") whose values reach the handler as Request::path_params.
//
// Policy lives here, not in handlers: 404 for unknown paths and 405 (with Allow) for known paths
// with the wrong method, both as JSON; HEAD is served wherever GET is; every non-GET/HEAD route
// requires the bearer token when one is configured (compared in constant time); CORS headers are
// added only for origins on the configured allowlist.
//
// Thread safety: Add() must be called before serving starts; Dispatch() is const and may be
// called concurrently from the server's threads.

#ifndef EDGEMOND_HTTP_ROUTER_H_
#define EDGEMOND_HTTP_ROUTER_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "http/request.h"

namespace edgemond::http {

using Handler = std::function<Response(const Request&)>;

struct RouterOptions {
  // When non-empty, every mutating route (any method but GET/HEAD) requires
  // "Authorization: Bearer <token>".
  std::string bearer_token;
  // Origins allowed to read responses from a browser. Empty: no CORS headers at all.
  std::vector<std::string> cors_allow_origins;
};

class Router {
 public:
  explicit Router(RouterOptions options) : options_(std::move(options)) {}

  // `name` labels the route in edgemond_http_requests_total{handler}.
  void Add(std::string_view method, std::string_view pattern, std::string_view name,
           Handler handler);

  Response Dispatch(Request request) const;

  struct RouteStats {
    std::string name;
    std::uint64_t requests;
    std::uint64_t errors;  // Responses with status >= 400.
  };
  // Per-route request counters since start, for the server's self-metrics.
  std::vector<RouteStats> Stats() const;

 private:
  struct Route {
    std::string method;
    std::vector<std::string> segments;  // Pattern split on '/'; "{x}" captures.
    std::string name;
    Handler handler;
    // Counters are the only mutable state; atomics so Dispatch() can stay const.
    std::unique_ptr<std::atomic<std::uint64_t>> requests;
    std::unique_ptr<std::atomic<std::uint64_t>> errors;
  };

  bool Authorized(const Request& request) const;
  void AddCors(const Request& request, Response& response) const;

  RouterOptions options_;      // Constant after construction.
  std::vector<Route> routes_;  // Constant once serving starts.
};

}  // namespace edgemond::http

#endif  // EDGEMOND_HTTP_ROUTER_H_
