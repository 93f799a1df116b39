#include "daemon/reload_plan.h"

#include <algorithm>

#include "alerts/rule_parser.h"

namespace edgemond::daemon {
namespace {

bool SameSection(const Config& a, const Config& b, const char* section) {
  return ConfigToJson(a)[section] == ConfigToJson(b)[section];
}

bool HasRule(const std::vector<alerts::Rule>& rules, const std::string& name) {
  return std::any_of(rules.begin(), rules.end(),
                     [&](const alerts::Rule& r) { return r.name == name; });
}

}  // namespace

ReloadPlan PlanReload(const Config& running, Config next) {
  ReloadPlan plan;
  plan.kept = KeepValuesThatNeedARestart(running, next);
  plan.log_level = next.log_level != running.log_level;
  plan.interval = next.collection.interval_seconds != running.collection.interval_seconds;
  plan.collectors = !SameSection(next, running, "collectors");
  plan.flush_interval =
      next.storage.flush_interval_seconds != running.storage.flush_interval_seconds;
  plan.http = !SameSection(next, running, "http");
  plan.http_listen = next.http.listen != running.http.listen;
  plan.alert_sink = next.alerts.sink != running.alerts.sink;
  for (const alerts::Rule& rule : next.alerts.rules) {
    const auto old = std::find_if(running.alerts.rules.begin(), running.alerts.rules.end(),
                                  [&](const alerts::Rule& r) { return r.name == rule.name; });
    if (old == running.alerts.rules.end()) {
      ++plan.rules_added;
    } else if (!alerts::SameDefinition(*old, rule)) {
      ++plan.rules_changed;
    }
  }
  for (const alerts::Rule& rule : running.alerts.rules) {
    if (!HasRule(next.alerts.rules, rule.name)) ++plan.rules_removed;
  }
  plan.next = std::move(next);
  return plan;
}

}  // namespace edgemond::daemon
