#include "http/router.h"

#include <algorithm>

#include "core/constant_time.h"

namespace edgemond::http {
namespace {

std::vector<std::string> SplitPath(std::string_view path) {
  std::vector<std::string> segments;
  std::size_t start = 0;
  while (start <= path.size()) {
    std::size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    if (end > start) segments.emplace_back(path.substr(start, end - start));
    start = end + 1;
  }
  return segments;
}

bool IsCapture(std::string_view segment) {
  return segment.size() > 2 && segment.front() == '{' && segment.back() == '}';
}

bool IsReadOnly(std::string_view method) { return method == "GET" || method == "HEAD"; }

}  // namespace

void Router::Add(std::string_view method, std::string_view pattern, std::string_view name,
                 Handler handler) {
  routes_.push_back(Route{std::string(method), SplitPath(pattern), std::string(name),
                          std::move(handler), std::make_unique<std::atomic<std::uint64_t>>(0),
                          std::make_unique<std::atomic<std::uint64_t>>(0)});
}

bool Router::Authorized(const Request& request) const {
  if (options_.bearer_token.empty()) return true;
  const auto header = request.Header("authorization");
  constexpr std::string_view kBearer = "Bearer ";
  if (!header || header->substr(0, kBearer.size()) != kBearer) return false;
  return ConstantTimeEquals(header->substr(kBearer.size()), options_.bearer_token);
}

void Router::AddCors(const Request& request, Response& response) const {
  const auto origin = request.Header("origin");
  if (!origin || options_.cors_allow_origins.empty()) return;
  const auto& allowed = options_.cors_allow_origins;
  if (std::find(allowed.begin(), allowed.end(), *origin) == allowed.end()) return;
  response.headers.emplace_back("Access-Control-Allow-Origin", std::string(*origin));
  response.headers.emplace_back("Vary", "Origin");
}

Response Router::Dispatch(Request request) const {
  const std::vector<std::string> segments = SplitPath(request.path);
  std::vector<std::string> allowed_methods;
  const Route* match = nullptr;
  for (const Route& route : routes_) {
    if (route.segments.size() != segments.size()) continue;
    std::vector<std::pair<std::string, std::string>> captures;
    bool same = true;
    for (std::size_t i = 0; i < segments.size() && same; ++i) {
      if (IsCapture(route.segments[i])) {
        captures.emplace_back(route.segments[i].substr(1, route.segments[i].size() - 2),
                              segments[i]);
      } else {
        same = route.segments[i] == segments[i];
      }
    }
    if (!same) continue;
    allowed_methods.push_back(route.method);
    if (route.method == "GET") allowed_methods.push_back("HEAD");
    const bool method_matches =
        route.method == request.method || (route.method == "GET" && request.method == "HEAD");
    if (method_matches && match == nullptr) {
      match = &route;
      request.path_params = std::move(captures);
    }
  }

  Response response;
  if (match != nullptr) {
    if (!IsReadOnly(request.method) && !Authorized(request)) {
      response = JsonError(401, "unauthorized",
                           "this endpoint requires \"Authorization: Bearer <token>\" with the "
                           "token from the http.bearer_token setting");
      response.headers.emplace_back("WWW-Authenticate", "Bearer");
    } else {
      response = match->handler(request);
    }
    match->requests->fetch_add(1, std::memory_order_relaxed);
    if (response.status >= 400) match->errors->fetch_add(1, std::memory_order_relaxed);
  } else if (!allowed_methods.empty()) {
    std::sort(allowed_methods.begin(), allowed_methods.end());
    allowed_methods.erase(std::unique(allowed_methods.begin(), allowed_methods.end()),
                          allowed_methods.end());
    std::string allow;
    for (const std::string& method : allowed_methods) {
      if (!allow.empty()) allow += ", ";
      allow += method;
    }
    response = JsonError(405, "method_not_allowed",
                         "method " + request.method + " is not allowed on " + request.path +
                             " (allowed: " + allow + ")");
    response.headers.emplace_back("Allow", allow);
  } else {
    response = JsonError(404, "not_found",
                         "no such endpoint: " + request.path + " (see /api/v1 in docs/api.md)");
  }
  AddCors(request, response);
  return response;
}

std::vector<Router::RouteStats> Router::Stats() const {
  std::vector<RouteStats> stats;
  for (const Route& route : routes_) {
    stats.push_back({route.name, route.requests->load(std::memory_order_relaxed),
                     route.errors->load(std::memory_order_relaxed)});
  }
  return stats;
}

}  // namespace edgemond::http
