// The alerts that benchmark runs raise: built-in event rules of the alert evaluator
// (alerts/evaluator.h), so that they go where every alert goes (the journal or stderr, the alert
// history, GET /api/v1/alerts, edgemond_alert_firing) and survive a restart the same way.
//
// A threshold rule compares a series every collection; a benchmark is an event, judged once per
// run (selfbench/verdict.h). So each check of the verdict is a judgement of its rule's alert for
// the model: a failed check fires (or keeps firing) it, a passed check resolves it, and a check
// the run could not judge leaves it as it is. One transition per change, never one per run.
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
// hints, "; "-separated; a failed check only), `run` (the API path of the run that decided it).

#ifndef EDGEMOND_SELFBENCH_MODEL_ALERTS_H_
#define EDGEMOND_SELFBENCH_MODEL_ALERTS_H_

#include <string_view>
#include <vector>

#include "alerts/evaluator.h"
#include "alerts/rule.h"
#include "core/benchmark.h"
#include "selfbench/verdict.h"

namespace edgemond::selfbench {

// The rules above, in that order; `enabled` while a model is configured for benchmarks (a disabled
// rule exports no edgemond_alert_firing and resolves what it fired).
std::vector<alerts::Rule> ModelAlertRules(bool enabled);

// Whether `name` is one of those rules' (user rules may not take these names).
bool IsModelAlertRule(std::string_view name);

// The judgements of a finished run's verdict, one per check that has a rule.
std::vector<alerts::Evaluator::Judgement> ModelAlertJudgements(const BenchmarkRun& run,
                                                               const Verdict& verdict);

}  // namespace edgemond::selfbench

#endif  // EDGEMOND_SELFBENCH_MODEL_ALERTS_H_
