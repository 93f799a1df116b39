#include "selfbench/model_alerts.h"

#include <algorithm>
#include <string>

namespace edgemond::selfbench {
namespace {

struct RuleInfo {
  std::string_view rule;
  std::string_view check;
  AlertSeverity severity;
};

constexpr RuleInfo kRules[] = {
    {"model_benchmark_failed", "failed", AlertSeverity::kWarning},
    {"model_output_mismatch", "output", AlertSeverity::kCritical},
    {"model_latency_regression", "latency", AlertSeverity::kWarning},
    {"model_energy_regression", "energy", AlertSeverity::kWarning},
    {"model_memory_regression", "memory", AlertSeverity::kWarning},
    {"model_latency_over_budget", "latency_budget", AlertSeverity::kCritical},
    {"model_energy_over_budget", "energy_budget", AlertSeverity::kCritical},
};

std::string JoinHints(const std::vector<std::string>& hints) {
  std::string out;
  for (const std::string& hint : hints) out += (out.empty() ? "" : "; ") + hint;
  return out;
}

}  // namespace

std::vector<alerts::Rule> ModelAlertRules(bool enabled) {
  std::vector<alerts::Rule> rules;
  for (const RuleInfo& info : kRules) {
    alerts::Rule rule;
    rule.name = std::string(info.rule);
    rule.kind = alerts::RuleKind::kEvent;
    rule.severity = info.severity;
    rule.enabled = enabled;
    rule.source = "built-in (self-benchmarks)";
    rules.push_back(std::move(rule));
  }
  return rules;
}

bool IsModelAlertRule(std::string_view name) {
  return std::any_of(std::begin(kRules), std::end(kRules),
                     [&](const RuleInfo& info) { return info.rule == name; });
}

std::vector<alerts::Evaluator::Judgement> ModelAlertJudgements(const BenchmarkRun& run,
                                                               const Verdict& verdict) {
  std::vector<alerts::Evaluator::Judgement> out;
  const std::string run_path = "/api/v1/benchmarks/runs/" + std::to_string(run.id);
  for (const Check& check : verdict.checks) {
    const auto info = std::find_if(std::begin(kRules), std::end(kRules),
                                   [&](const RuleInfo& r) { return r.check == check.kind; });
    if (info == std::end(kRules)) continue;
    alerts::Evaluator::Judgement judgement;
    judgement.rule = std::string(info->rule);
    judgement.labels = {{"model", run.model}};
    judgement.condition = check.failed;
    judgement.value = check.value;
    judgement.op = check.op;
    judgement.threshold = check.threshold;
    judgement.annotations = {{"summary", check.summary}};
    if (check.failed && !verdict.hints.empty()) {
      judgement.annotations.push_back({"hints", JoinHints(verdict.hints)});
    }
    judgement.annotations.push_back({"run", run_path});
    out.push_back(std::move(judgement));
  }
  return out;
}

}  // namespace edgemond::selfbench
