// GET /, /healthz, /readyz, /api/v1/device, /api/v1/collectors.

#include <nlohmann/json.hpp>

#include "http/api.h"

namespace edgemond::http {

Response HandleIndex(const ApiContext& context, const Request& /*request*/) {
  Response response;
  response.content_type = "text/html; charset=utf-8";
  response.body =
      "<!doctype html><html><head><title>edgemond</title></head><body>"
      "<h1>edgemond " +
      context.version +
      "</h1><ul>"
      "<li><a href=\"/metrics\">/metrics</a> (Prometheus)</li>"
      "<li><a href=\"/api/v1/device\">/api/v1/device</a></li>"
      "<li><a href=\"/api/v1/collectors\">/api/v1/collectors</a></li>"
      "<li><a href=\"/api/v1/series\">/api/v1/series</a></li>"
      "<li><a href=\"/api/v1/latest\">/api/v1/latest</a></li>"
      "<li><a href=\"/api/v1/alerts\">/api/v1/alerts</a></li>"
      "<li><a href=\"/api/v1/benchmarks\">/api/v1/benchmarks</a></li>"
      "<li><a href=\"/healthz\">/healthz</a></li>"
      "</ul></body></html>\n";
  return response;
}

Response HandleHealthz(const ApiContext& context, const Request& /*request*/) {
  const Health health = context.backend.GetHealth();
  if (!health.alive) return JsonError(503, "unhealthy", health.detail);
  return JsonData({{"alive", true}});
}

Response HandleReadyz(const ApiContext& context, const Request& /*request*/) {
  const Health health = context.backend.GetHealth();
  if (!health.alive || !health.ready) return JsonError(503, "not_ready", health.detail);
  return JsonData({{"ready", true}});
}

Response HandleDevice(const ApiContext& context, const Request& /*request*/) {
  nlohmann::json device = context.backend.Device();
  device["edgemond_version"] = context.version;
  return JsonData(device);
}

Response HandleCollectors(const ApiContext& context, const Request& /*request*/) {
  return JsonData({{"collectors", context.backend.Collectors()}});
}

}  // namespace edgemond::http
