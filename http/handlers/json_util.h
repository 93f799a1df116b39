// JSON shapes shared by the API handlers.

#ifndef EDGEMOND_HTTP_HANDLERS_JSON_UTIL_H_
#define EDGEMOND_HTTP_HANDLERS_JSON_UTIL_H_

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>

#include "core/query.h"
#include "core/result.h"
#include "core/sample.h"
#include "http/request.h"

namespace edgemond::http {

// {"cpu":"0","type":"x"}: labels as an object, in the series' label order.
nlohmann::json LabelsJson(const Labels& labels);

// Unix seconds with millisecond precision, as a JSON number (1767225600.25).
nlohmann::json TimeJson(std::int64_t unix_millis);

// A double, or null when absent or not finite (JSON has no NaN).
nlohmann::json ValueJson(std::optional<double> value);

// {"name":..,"labels":{..},"unit":..,"type":..,"first":..,"last":..}
nlohmann::json SeriesInfoJson(const SeriesInfo& info);

// Parses the optional `match` parameter as a series selector; a 400 response on error.
Result<std::optional<SeriesSelector>> MatchParam(const Request& request);

// The HTTP status for a Status coming back from the backend.
Response StatusResponse(const Status& status, std::string_view param = {});

}  // namespace edgemond::http

#endif  // EDGEMOND_HTTP_HANDLERS_JSON_UTIL_H_
