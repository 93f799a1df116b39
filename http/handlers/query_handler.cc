// GET /api/v1/query?series=<selector>&from=&to=&step=&agg=&format=json|csv

#include <nlohmann/json.hpp>

#include "http/api.h"
#include "http/handlers/json_util.h"
#include "http/prometheus_text.h"
#include "http/time_params.h"

namespace edgemond::http {
namespace {

constexpr std::int64_t kDefaultRangeMillis = 10 * 60 * 1000;  // As netdata: the last 10 minutes.

std::string CsvField(std::string_view text) {
  if (text.find_first_of(",\"\n") == std::string_view::npos) return std::string(text);
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"') out.push_back('"');
    out.push_back(c);
  }
  out.push_back('"');
  return out;
}

Response Csv(const QueryResult& result) {
  std::string body = "series,timestamp,value\n";
  for (const SeriesPoints& series : result.series) {
    const std::string key = CsvField(SeriesKey(series.series.name, series.series.labels));
    for (const Point& point : series.points) {
      body += key;
      body += ',';
      body += TimeJson(point.t_ms).dump();
      body += ',';
      if (point.value) body += FormatPrometheusValue(*point.value);
      body += '\n';
    }
  }
  Response response;
  response.content_type = "text/csv; charset=utf-8";
  response.body = std::move(body);
  response.headers.emplace_back("Cache-Control", "no-store");
  return response;
}

}  // namespace

Response HandleQuery(const ApiContext& context, const Request& request) {
  const std::int64_t now_ms = ToUnixMillis(context.clock.WallNow());
  RangeQuery query;

  const auto series = request.Param("series");
  if (!series || series->empty()) {
    return JsonError(400, "bad_param",
                     "missing parameter \"series\": a series selector such as "
                     "edgemond_cpu_utilization_ratio{cpu=\"all\"}",
                     "series");
  }
  auto selector = ParseSeriesSelector(*series);
  if (!selector.ok()) return StatusResponse(selector.status(), "series");
  query.selector = std::move(*selector);

  query.to_ms = now_ms;
  if (const auto to = request.Param("to")) {
    auto parsed = ParseTimeMillis(*to, now_ms);
    if (!parsed.ok()) return StatusResponse(parsed.status(), "to");
    query.to_ms = *parsed;
  }
  query.from_ms = query.to_ms - kDefaultRangeMillis;
  if (const auto from = request.Param("from")) {
    auto parsed = ParseTimeMillis(*from, now_ms);
    if (!parsed.ok()) return StatusResponse(parsed.status(), "from");
    query.from_ms = *parsed;
  }
  if (query.from_ms > query.to_ms) {
    return JsonError(400, "bad_param", "\"from\" is after \"to\"", "from");
  }
  if (const auto step = request.Param("step")) {
    auto parsed = ParseDurationMillis(*step);
    if (!parsed.ok()) return StatusResponse(parsed.status(), "step");
    query.step_ms = *parsed;
    const std::int64_t points = (query.to_ms - query.from_ms) / query.step_ms + 1;
    if (points > static_cast<std::int64_t>(context.limits.max_points_per_series)) {
      return JsonError(400, "bad_param",
                       "the range and step give " + std::to_string(points) +
                           " points per series; the limit is " +
                           std::to_string(context.limits.max_points_per_series) +
                           " (use a larger step or a shorter range)",
                       "step");
    }
  }
  if (const auto agg = request.Param("agg")) {
    auto parsed = ParseAggregation(*agg);
    if (!parsed.ok()) return StatusResponse(parsed.status(), "agg");
    query.aggregation = *parsed;
  }
  const std::string_view format = request.Param("format").value_or("json");
  if (format != "json" && format != "csv") {
    return JsonError(400, "bad_param", "format must be json or csv", "format");
  }
  query.max_points_per_series = context.limits.max_points_per_series;
  query.max_series = context.limits.max_series_per_query;

  auto result = context.backend.Query(query);
  if (!result.ok()) return StatusResponse(result.status());
  if (format == "csv") return Csv(*result);

  nlohmann::json out = {
      {"from", TimeJson(query.from_ms)},
      {"to", TimeJson(query.to_ms)},
      {"step", result->step_ms == 0 ? nlohmann::json(nullptr) : TimeJson(result->step_ms)},
      {"aggregation", query.step_ms == 0 ? "none" : AggregationName(query.aggregation)}};
  nlohmann::json list = nlohmann::json::array();
  for (const SeriesPoints& points : result->series) {
    nlohmann::json item = SeriesInfoJson(points.series);
    nlohmann::json values = nlohmann::json::array();
    for (const Point& point : points.points) {
      values.push_back({TimeJson(point.t_ms), ValueJson(point.value)});
    }
    item["points"] = std::move(values);
    list.push_back(std::move(item));
  }
  out["series"] = std::move(list);
  return JsonData(out);
}

}  // namespace edgemond::http
