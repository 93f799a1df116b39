#include "http/api.h"

namespace edgemond::http {

void RegisterApiRoutes(Router& router, const ApiContext& context) {
  const ApiContext* ctx = &context;  // Outlives the router (see ApiContext).
  const auto bind = [ctx](Response (*handler)(const ApiContext&, const Request&)) {
    return [ctx, handler](const Request& request) { return handler(*ctx, request); };
  };
  router.Add("GET", "/", "index", bind(&HandleIndex));
  router.Add("GET", "/healthz", "healthz", bind(&HandleHealthz));
  router.Add("GET", "/readyz", "readyz", bind(&HandleReadyz));
  router.Add("GET", "/metrics", "metrics", bind(&HandleMetrics));
  router.Add("GET", "/api/v1/device", "device", bind(&HandleDevice));
  router.Add("GET", "/api/v1/collectors", "collectors", bind(&HandleCollectors));
  router.Add("GET", "/api/v1/series", "series", bind(&HandleSeries));
  router.Add("GET", "/api/v1/latest", "latest", bind(&HandleLatest));
  router.Add("GET", "/api/v1/query", "query", bind(&HandleQuery));
  router.Add("GET", "/api/v1/alerts", "alerts", bind(&HandleAlerts));
  router.Add("GET", "/api/v1/alerts/history", "alert_history", bind(&HandleAlertHistory));
  router.Add("GET", "/api/v1/alerts/rules", "alert_rules", bind(&HandleAlertRules));
  router.Add("GET", "/api/v1/events", "events", bind(&HandleEvents));
  router.Add("GET", "/api/v1/benchmarks", "benchmarks", bind(&HandleBenchmarks));
  router.Add("GET", "/api/v1/benchmarks/runs/{id}", "benchmark_run", bind(&HandleBenchmarkRun));
  router.Add("GET", "/api/v1/benchmarks/{model}", "benchmark_history",
             bind(&HandleBenchmarkHistory));
  router.Add("POST", "/api/v1/benchmarks/{model}/run", "benchmark_start",
             bind(&HandleStartBenchmark));
}

}  // namespace edgemond::http
