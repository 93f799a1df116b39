// GET /api/v1/alerts, /api/v1/alerts/history?from=&to=&rule=&limit=, /api/v1/alerts/rules.

#include <nlohmann/json.hpp>

#include "core/text.h"
#include "http/api.h"
#include "http/handlers/json_util.h"
#include "http/time_params.h"

namespace edgemond::http {
namespace {

constexpr std::int64_t kDefaultHistoryMillis = 7LL * 24 * 3600 * 1000;  // The last week.
constexpr std::size_t kDefaultHistoryLimit = 1000;
constexpr std::size_t kMaxHistoryLimit = 100000;

nlohmann::json Iso(WallTime time) { return TimeJson(ToUnixMillis(time)); }

}  // namespace

Response HandleAlerts(const ApiContext& context, const Request& /*request*/) {
  nlohmann::json alerts = nlohmann::json::array();
  for (const ActiveAlert& alert : context.backend.ActiveAlerts()) {
    alerts.push_back({
        {"rule", alert.rule},
        {"state", AlertStateName(alert.state)},
        {"severity", AlertSeverityName(alert.severity)},
        {"labels", LabelsJson(alert.labels)},
        {"rule_labels", LabelsJson(alert.rule_labels)},
        {"value", ValueJson(alert.value)},
        {"op", alert.op},
        {"threshold", ValueJson(alert.threshold)},
        {"clear_threshold", ValueJson(alert.clear_threshold)},
        {"active_since", Iso(alert.active_since)},
        {"firing_since", alert.firing_since ? Iso(*alert.firing_since) : nullptr},
        {"missing_since", alert.missing_since ? Iso(*alert.missing_since) : nullptr},
        {"annotations", LabelsJson(alert.annotations)},
    });
  }
  return JsonData({{"alerts", alerts}});
}

Response HandleAlertHistory(const ApiContext& context, const Request& request) {
  const std::int64_t now_ms = ToUnixMillis(context.clock.WallNow());
  AlertHistoryQuery query;
  query.to_ms = now_ms;
  query.from_ms = now_ms - kDefaultHistoryMillis;
  query.limit = kDefaultHistoryLimit;
  if (const auto to = request.Param("to")) {
    auto parsed = ParseTimeMillis(*to, now_ms);
    if (!parsed.ok()) return StatusResponse(parsed.status(), "to");
    query.to_ms = *parsed;
    if (!request.Param("from")) query.from_ms = query.to_ms - kDefaultHistoryMillis;
  }
  if (const auto from = request.Param("from")) {
    auto parsed = ParseTimeMillis(*from, now_ms);
    if (!parsed.ok()) return StatusResponse(parsed.status(), "from");
    query.from_ms = *parsed;
  }
  if (query.from_ms > query.to_ms) {
    return JsonError(400, "bad_param", "\"from\" is after \"to\"", "from");
  }
  if (const auto rule = request.Param("rule"); rule && !rule->empty()) {
    query.rule = std::string(*rule);
  }
  if (const auto limit = request.Param("limit")) {
    auto parsed = ParseUint64(*limit);
    if (!parsed.ok() || *parsed == 0 || *parsed > kMaxHistoryLimit) {
      return JsonError(
          400, "bad_param",
          "\"limit\" must be a whole number from 1 to " + std::to_string(kMaxHistoryLimit),
          "limit");
    }
    query.limit = static_cast<std::size_t>(*parsed);
  }
  auto history = context.backend.AlertHistory(query);
  if (!history.ok()) return StatusResponse(history.status());
  nlohmann::json transitions = nlohmann::json::array();
  for (const AlertTransition& t : *history) {
    transitions.push_back({
        {"rule", t.rule},
        {"state", AlertStateName(t.state)},
        {"severity", AlertSeverityName(t.severity)},
        {"labels", LabelsJson(t.labels)},
        {"rule_labels", LabelsJson(t.rule_labels)},
        {"value", ValueJson(t.value)},
        {"op", t.op},
        {"threshold", ValueJson(t.threshold)},
        {"clear_threshold", ValueJson(t.clear_threshold)},
        {"at", Iso(t.at)},
        {"active_since", Iso(t.active_since)},
        {"reason", t.reason},
        {"annotations", LabelsJson(t.annotations)},
    });
  }
  return JsonData({{"from", TimeJson(query.from_ms)},
                   {"to", TimeJson(query.to_ms)},
                   {"transitions", transitions}});
}

Response HandleAlertRules(const ApiContext& context, const Request& /*request*/) {
  return JsonData({{"rules", context.backend.AlertRules()}});
}

}  // namespace edgemond::http
