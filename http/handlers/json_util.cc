#include "http/handlers/json_util.h"

#include <cmath>

namespace edgemond::http {

nlohmann::json LabelsJson(const Labels& labels) {
  nlohmann::json out = nlohmann::json::object();
  for (const Label& label : labels) out[label.name] = label.value;
  return out;
}

nlohmann::json TimeJson(std::int64_t unix_millis) {
  if (unix_millis % 1000 == 0) return unix_millis / 1000;
  return static_cast<double>(unix_millis) / 1000.0;
}

nlohmann::json ValueJson(std::optional<double> value) {
  if (!value || !std::isfinite(*value)) return nullptr;
  return *value;
}

nlohmann::json SeriesInfoJson(const SeriesInfo& info) {
  nlohmann::json out = {{"name", info.name},
                        {"labels", LabelsJson(info.labels)},
                        {"unit", info.unit},
                        {"type", MetricTypeName(info.type)}};
  out["first"] = info.first_ms ? TimeJson(*info.first_ms) : nullptr;
  out["last"] = info.last_ms ? TimeJson(*info.last_ms) : nullptr;
  return out;
}

Result<std::optional<SeriesSelector>> MatchParam(const Request& request) {
  const auto match = request.Param("match");
  if (!match || match->empty()) return std::optional<SeriesSelector>();
  EDGEMOND_ASSIGN_OR_RETURN(SeriesSelector selector, ParseSeriesSelector(*match));
  return std::optional<SeriesSelector>(std::move(selector));
}

Response StatusResponse(const Status& status, std::string_view param) {
  switch (status.code()) {
    case StatusCode::kInvalidArgument:
      return JsonError(400, "bad_param", status.message(), param);
    case StatusCode::kNotFound:
      return JsonError(404, "not_found", status.message(), param);
    case StatusCode::kResourceExhausted:
      return JsonError(422, "too_large", status.message(), param);
    case StatusCode::kUnavailable:
    case StatusCode::kDeadlineExceeded:
      return JsonError(503, "unavailable", status.message());
    default:
      return JsonError(500, "internal", status.message());
  }
}

}  // namespace edgemond::http
