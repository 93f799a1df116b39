// The edgemond HTTP API: registers every endpoint on a Router. Each handler is a free function of
// (ApiContext, Request) -> Response, testable without a socket. docs/api.md documents them.

#ifndef EDGEMOND_HTTP_API_H_
#define EDGEMOND_HTTP_API_H_

#include <cstddef>
#include <string>

#include "core/clock.h"
#include "http/api_backend.h"
#include "http/connection_guard.h"
#include "http/latest_cache.h"
#include "http/request.h"
#include "http/router.h"

namespace edgemond::http {

struct ApiLimits {
  std::size_t max_points_per_series = 11000;  // As Prometheus's query_range.
  std::size_t max_series_per_query = 500;
};

// Everything a handler may use. All references outlive the router the routes are added to.
struct ApiContext {
  const ApiBackend& backend;
  const Clock& clock;
  const Router& router;  // For the server's self-metrics on /metrics.
  ApiLimits limits;
  std::string version;
  std::shared_ptr<LatestCache> latest_cache = std::make_shared<LatestCache>();
  // The connections the server shut down, for /metrics (borrowed; may be null).
  const ConnectionCounters* connections = nullptr;
};

void RegisterApiRoutes(Router& router, const ApiContext& context);

// Handlers (registered by RegisterApiRoutes; exposed for tests).
Response HandleIndex(const ApiContext& context, const Request& request);
Response HandleHealthz(const ApiContext& context, const Request& request);
Response HandleReadyz(const ApiContext& context, const Request& request);
Response HandleMetrics(const ApiContext& context, const Request& request);
Response HandleDevice(const ApiContext& context, const Request& request);
Response HandleCollectors(const ApiContext& context, const Request& request);
Response HandleSeries(const ApiContext& context, const Request& request);
Response HandleLatest(const ApiContext& context, const Request& request);
Response HandleQuery(const ApiContext& context, const Request& request);
Response HandleAlerts(const ApiContext& context, const Request& request);
Response HandleAlertHistory(const ApiContext& context, const Request& request);
Response HandleAlertRules(const ApiContext& context, const Request& request);
Response HandleEvents(const ApiContext& context, const Request& request);
Response HandleBenchmarks(const ApiContext& context, const Request& request);
Response HandleBenchmarkHistory(const ApiContext& context, const Request& request);
Response HandleBenchmarkRun(const ApiContext& context, const Request& request);
Response HandleStartBenchmark(const ApiContext& context, const Request& request);

}  // namespace edgemond::http

#endif  // EDGEMOND_HTTP_API_H_
