// GET /api/v1/events?kind=throttle&from=-3600

#include <nlohmann/json.hpp>

#include "http/api.h"
#include "http/handlers/json_util.h"
#include "http/time_params.h"

namespace edgemond::http {

Response HandleEvents(const ApiContext& context, const Request& request) {
  std::optional<std::int64_t> from_ms;
  if (const auto from = request.Param("from")) {
    auto parsed = ParseTimeMillis(*from, ToUnixMillis(context.clock.WallNow()));
    if (!parsed.ok()) return StatusResponse(parsed.status(), "from");
    from_ms = *parsed;
  }
  const std::optional<std::string_view> kind = request.Param("kind");
  nlohmann::json out = nlohmann::json::array();
  for (const ApiEvent& event : context.backend.Events()) {
    const std::int64_t at_ms = ToUnixMillis(event.at);
    if (from_ms && at_ms < *from_ms) continue;
    if (kind && event.kind != *kind) continue;
    out.push_back({{"timestamp", TimeJson(at_ms)},
                   {"kind", event.kind},
                   {"state", event.state},
                   {"labels", LabelsJson(event.labels)}});
  }
  return JsonData(out);
}

}  // namespace edgemond::http
