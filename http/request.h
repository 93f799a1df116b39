// Request and Response: what a handler sees and returns. Handlers are plain functions of
// (Request) -> Response so that every one of them can be tested without a socket; MhdServer is
// only the transport.

#ifndef EDGEMOND_HTTP_REQUEST_H_
#define EDGEMOND_HTTP_REQUEST_H_

#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace edgemond::http {

struct Request {
  std::string method;  // "GET", "HEAD", "POST", ...
  std::string path;    // Decoded path without the query string: "/api/v1/query".
  std::vector<std::pair<std::string, std::string>> query;    // Decoded, in request order.
  std::vector<std::pair<std::string, std::string>> headers;  // Names lower-cased.
  std::string body;
  // Values of `{name}` segments of the matched route pattern, filled in by the Router.
  std::vector<std::pair<std::string, std::string>> path_params;

  // First value of a query parameter, if present.
  std::optional<std::string_view> Param(std::string_view name) const;
  std::optional<std::string_view> Header(std::string_view lower_case_name) const;
  std::optional<std::string_view> PathParam(std::string_view name) const;
};

struct Response {
  int status = 200;
  std::string content_type;
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;  // Extra headers.
};

inline constexpr std::string_view kJsonContentType = "application/json; charset=utf-8";
inline constexpr std::string_view kPrometheusContentType =
    "text/plain; version=0.0.4; charset=utf-8";

// {"status":"success","data":<data>} with status 200 and Cache-Control: no-store.
Response JsonData(const nlohmann::json& data);

// {"status":"error","error":{"code":...,"message":...[,"param":...]}}. `code` is a short
// machine-readable word ("bad_param", "not_found", "method_not_allowed"); `message` says what was
// wrong in a sentence a user can act on.
Response JsonError(int status, std::string_view code, std::string_view message,
                   std::string_view param = {});

}  // namespace edgemond::http

#endif  // EDGEMOND_HTTP_REQUEST_H_
