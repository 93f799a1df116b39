#include "selfbench/model_alerts.h"

#include <algorithm>

namespace edgemond::selfbench {
namespace {

std::string ModelOf(const Labels& labels) {
  for (const Label& label : labels) {
    if (label.name == "model") return label.value;
  }
  return "";
}

std::string JoinHints(const std::vector<std::string>& hints) {
  std::string out;
  for (const std::string& hint : hints) out += (out.empty() ? "" : "; ") + hint;
  return out;
}

AlertTransition ToTransition(const ActiveAlert& alert, AlertState state, WallTime at,
                             std::string reason) {
  AlertTransition t;
  t.rule = alert.rule;
  t.state = state;
  t.severity = alert.severity;
  t.labels = alert.labels;
  t.rule_labels = alert.rule_labels;
  t.value = alert.value;
  t.op = alert.op;
  t.threshold = alert.threshold;
  t.clear_threshold = alert.clear_threshold;
  t.at = at;
  t.active_since = alert.active_since;
  t.reason = std::move(reason);
  t.annotations = alert.annotations;
  return t;
}

}  // namespace

constexpr ModelAlerts::RuleInfo kRules[] = {
    {"model_benchmark_failed", "failed", AlertSeverity::kWarning},
    {"model_output_mismatch", "output", AlertSeverity::kCritical},
    {"model_latency_regression", "latency", AlertSeverity::kWarning},
    {"model_energy_regression", "energy", AlertSeverity::kWarning},
    {"model_memory_regression", "memory", AlertSeverity::kWarning},
    {"model_latency_over_budget", "latency_budget", AlertSeverity::kCritical},
    {"model_energy_over_budget", "energy_budget", AlertSeverity::kCritical},
};

std::span<const ModelAlerts::RuleInfo> ModelAlerts::Rules() { return kRules; }

bool ModelAlerts::IsModelRule(std::string_view rule) {
  const auto rules = Rules();
  return std::any_of(rules.begin(), rules.end(), [&](const RuleInfo& r) { return r.rule == rule; });
}

std::vector<AlertTransition> ModelAlerts::Apply(const BenchmarkRun& run, const Verdict& verdict,
                                                WallTime now) {
  std::vector<AlertTransition> out;
  for (const Check& check : verdict.checks) {
    const auto rules = Rules();
    const auto info = std::find_if(rules.begin(), rules.end(),
                                   [&](const RuleInfo& r) { return r.check == check.kind; });
    if (info == rules.end()) continue;
    const auto key = std::make_pair(std::string(info->rule), run.model);
    const auto existing = firing_.find(key);
    if (!check.failed) {
      if (existing == firing_.end()) continue;
      ActiveAlert& alert = existing->second;
      alert.value = check.value;
      alert.annotations = {{"summary", check.summary},
                           {"run", "/api/v1/benchmarks/runs/" + std::to_string(run.id)}};
      out.push_back(ToTransition(alert, AlertState::kResolved, now, "cleared"));
      firing_.erase(existing);
      continue;
    }
    ActiveAlert alert;
    alert.rule = std::string(info->rule);
    alert.state = AlertState::kFiring;
    alert.severity = info->severity;
    alert.labels = {{"model", run.model}};
    alert.value = check.value;
    alert.op = check.op;
    alert.threshold = check.threshold;
    alert.clear_threshold = check.threshold;
    alert.annotations = {{"summary", check.summary}};
    if (!verdict.hints.empty()) alert.annotations.push_back({"hints", JoinHints(verdict.hints)});
    alert.annotations.push_back({"run", "/api/v1/benchmarks/runs/" + std::to_string(run.id)});
    if (existing != firing_.end()) {
      // Still firing: the newest run's numbers, the original start; no transition.
      alert.active_since = existing->second.active_since;
      alert.firing_since = existing->second.firing_since;
      existing->second = std::move(alert);
      continue;
    }
    alert.active_since = now;
    alert.firing_since = now;
    out.push_back(ToTransition(alert, AlertState::kFiring, now, "threshold"));
    firing_.emplace(key, std::move(alert));
  }
  return out;
}

void ModelAlerts::Restore(const std::vector<AlertTransition>& firing) {
  for (const AlertTransition& t : firing) {
    if (!IsModelRule(t.rule) || t.state != AlertState::kFiring) continue;
    ActiveAlert alert;
    alert.rule = t.rule;
    alert.state = AlertState::kFiring;
    alert.severity = t.severity;
    alert.labels = t.labels;
    alert.rule_labels = t.rule_labels;
    alert.value = t.value;
    alert.op = t.op;
    alert.threshold = t.threshold;
    alert.clear_threshold = t.clear_threshold;
    alert.active_since = t.active_since;
    alert.firing_since = t.at;
    alert.annotations = t.annotations;
    firing_[{t.rule, ModelOf(t.labels)}] = std::move(alert);
  }
}

std::vector<AlertTransition> ModelAlerts::Retain(const std::set<std::string>& models,
                                                 WallTime now) {
  std::vector<AlertTransition> out;
  for (auto it = firing_.begin(); it != firing_.end();) {
    if (models.count(it->first.second)) {
      ++it;
      continue;
    }
    out.push_back(ToTransition(it->second, AlertState::kResolved, now, "rule_removed"));
    it = firing_.erase(it);
  }
  return out;
}

std::vector<ActiveAlert> ModelAlerts::Active() const {
  std::vector<ActiveAlert> out;
  for (const auto& [key, alert] : firing_) out.push_back(alert);
  return out;
}

std::vector<Sample> ModelAlerts::Metrics(const MetricDesc& desc, WallTime now) const {
  std::vector<Sample> out;
  for (const RuleInfo& info : Rules()) {
    double count = 0;
    for (const auto& [key, alert] : firing_) {
      if (key.first == info.rule) count += 1;
    }
    out.push_back(Sample{&desc,
                         {{"alert", std::string(info.rule)},
                          {"severity", std::string(AlertSeverityName(info.severity))}},
                         count,
                         "",
                         now});
  }
  return out;
}

}  // namespace edgemond::selfbench
