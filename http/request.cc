#include "http/request.h"

#include <nlohmann/json.hpp>

namespace edgemond::http {
namespace {

std::optional<std::string_view> Find(const std::vector<std::pair<std::string, std::string>>& items,
                                     std::string_view name) {
  for (const auto& [key, value] : items) {
    if (key == name) return std::string_view(value);
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string_view> Request::Param(std::string_view name) const {
  return Find(query, name);
}
std::optional<std::string_view> Request::Header(std::string_view lower_case_name) const {
  return Find(headers, lower_case_name);
}
std::optional<std::string_view> Request::PathParam(std::string_view name) const {
  return Find(path_params, name);
}

Response JsonData(const nlohmann::json& data) {
  nlohmann::json envelope = {{"status", "success"}, {"data", data}};
  Response response;
  response.content_type = kJsonContentType;
  // Invalid UTF-8 from a device (labels, model names) is replaced rather than failing the dump.
  response.body = envelope.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  response.body.push_back('\n');
  response.headers.emplace_back("Cache-Control", "no-store");
  return response;
}

Response JsonError(int status, std::string_view code, std::string_view message,
                   std::string_view param) {
  nlohmann::json error = {{"code", code}, {"message", message}};
  if (!param.empty()) error["param"] = param;
  nlohmann::json envelope = {{"status", "error"}, {"error", error}};
  Response response;
  response.status = status;
  response.content_type = kJsonContentType;
  response.body = envelope.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  response.body.push_back('\n');
  response.headers.emplace_back("Cache-Control", "no-store");
  return response;
}

}  // namespace edgemond::http
