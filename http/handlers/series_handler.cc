// GET /api/v1/series (the catalog) and GET /api/v1/latest (the most recent collection).

#include <nlohmann/json.hpp>

#include "http/api.h"
#include "http/handlers/json_util.h"

namespace edgemond::http {

Response HandleSeries(const ApiContext& context, const Request& request) {
  auto selector = MatchParam(request);
  if (!selector.ok()) return StatusResponse(selector.status(), "match");
  auto series = context.backend.ListSeries(*selector);
  if (!series.ok()) return StatusResponse(series.status());
  nlohmann::json out = nlohmann::json::array();
  for (const SeriesInfo& info : *series) out.push_back(SeriesInfoJson(info));
  return JsonData(out);
}

Response HandleLatest(const ApiContext& context, const Request& request) {
  auto selector = MatchParam(request);
  if (!selector.ok()) return StatusResponse(selector.status(), "match");
  const auto latest = context.backend.Latest();
  const auto render = [&] {
    nlohmann::json out = nlohmann::json::array();
    for (const Sample& sample : *latest) {
      if (*selector && !(*selector)->Matches(sample.desc->name, sample.labels)) continue;
      nlohmann::json item = {{"name", sample.desc->name},
                             {"labels", LabelsJson(sample.labels)},
                             {"unit", sample.desc->unit},
                             {"value", ValueJson(sample.value)},
                             {"timestamp", TimeJson(ToUnixMillis(sample.at))}};
      if (!sample.has_value()) item["reason"] = sample.missing_reason;
      out.push_back(std::move(item));
    }
    return JsonData(out);
  };
  if (*selector) return render();
  Response response;
  response.content_type = kJsonContentType;
  response.headers.emplace_back("Cache-Control", "no-store");
  response.body = *context.latest_cache->Get(latest, [&] { return render().body; });
  return response;
}

}  // namespace edgemond::http
