// Parsing of the time parameters the API accepts (from, to, step), in the conventions of the
// Prometheus and netdata APIs.

#ifndef EDGEMOND_HTTP_TIME_PARAMS_H_
#define EDGEMOND_HTTP_TIME_PARAMS_H_

#include <cstdint>
#include <string_view>

#include "core/result.h"

namespace edgemond::http {

// A point in time, as Unix milliseconds:
//   "now"; a negative number of seconds relative to now ("-3600");
//   Unix seconds, possibly fractional ("1767225600", "1767225600.5");
//   RFC 3339 ("2026-01-01T00:00:00Z", "2026-01-01T01:00:00.250+01:00").
Result<std::int64_t> ParseTimeMillis(std::string_view text, std::int64_t now_ms);

// A positive duration, as milliseconds: Prometheus style units combined ("1h30m", "90s", "250ms",
// "7d", "2w") or a plain number of seconds ("60", "0.5").
Result<std::int64_t> ParseDurationMillis(std::string_view text);

}  // namespace edgemond::http

#endif  // EDGEMOND_HTTP_TIME_PARAMS_H_
