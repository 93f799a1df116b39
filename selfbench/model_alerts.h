// ModelAlerts: the alerts that benchmark runs raise, in the alert vocabulary of core/alert.h, so
// that they go where every alert goes (the journal or stderr, the alert history, GET
// /api/v1/alerts, edgemond_alert_firing) and survive a restart the same way.
//
// A threshold rule (alerts/) compares a series every collection; a benchmark is an event, judged
// once per run (selfbench/verdict.h). So each check of the verdict decides its alert directly: a
// failed check fires (or keeps firing) the alert of its rule and model, a passed check resolves
// it, and a check the run could not judge leaves it as it is. One transition per change, never
// one per run.
//
//   rule                          check           severity   value compared
//   model_benchmark_failed        failed          warning    1 (failed)
//   model_output_mismatch         output          critical   1 (mismatch)
//   model_latency_regression      latency         warning    p50 / baseline p50
//   model_energy_regression       energy          warning    energy per inference / baseline
//   model_memory_regression       memory          warning    peak RSS / baseline
//   model_latency_over_budget     latency_budget  critical   p99 ms
//   model_energy_over_budget      energy_budget   critical   mJ per inference
//
// Labels: {model}. Annotations: `summary` (the check's sentence), `hints` (the verdict's cause
// hints, "; "-separated), `run` (the API path of the run that decided it).
//
// Pure: time passed in. Thread safety: not thread-safe.

#ifndef EDGEMOND_SELFBENCH_MODEL_ALERTS_H_
#define EDGEMOND_SELFBENCH_MODEL_ALERTS_H_

#include <map>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/alert.h"
#include "core/benchmark.h"
#include "core/sample.h"
#include "selfbench/verdict.h"

namespace edgemond::selfbench {

class ModelAlerts {
 public:
  struct RuleInfo {
    std::string_view rule;
    std::string_view check;
    AlertSeverity severity;
  };
  static std::span<const RuleInfo> Rules();
  static bool IsModelRule(std::string_view rule);

  // Applies the verdict of `run` (finished at `now`); returns the transitions.
  std::vector<AlertTransition> Apply(const BenchmarkRun& run, const Verdict& verdict, WallTime now);

  // Re-creates alerts that were firing when the daemon stopped (their last stored transition),
  // without transitions. Transitions of other rules are ignored.
  void Restore(const std::vector<AlertTransition>& firing);

  // Resolves ("rule_removed") the alerts of models not in `models` (removed from the
  // configuration).
  std::vector<AlertTransition> Retain(const std::set<std::string>& models, WallTime now);

  // Every firing alert, sorted by rule then model.
  std::vector<ActiveAlert> Active() const;

  // For each rule: how many of its alerts fire, as `desc` (edgemond_alert_firing) samples.
  std::vector<Sample> Metrics(const MetricDesc& desc, WallTime now) const;

 private:
  // By (rule, model).
  std::map<std::pair<std::string, std::string>, ActiveAlert> firing_;
};

}  // namespace edgemond::selfbench

#endif  // EDGEMOND_SELFBENCH_MODEL_ALERTS_H_
