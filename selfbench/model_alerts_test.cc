#include "selfbench/model_alerts.h"

#include <gtest/gtest.h>

namespace edgemond::selfbench {
namespace {

using namespace std::chrono_literals;

BenchmarkRun MakeRun(std::int64_t id, std::string model = "m") {
  BenchmarkRun run;
  run.id = id;
  run.model = std::move(model);
  run.status = BenchmarkStatus::kSucceeded;
  return run;
}

Verdict With(std::vector<Check> checks, std::vector<std::string> hints = {}) {
  Verdict verdict;
  verdict.checks = std::move(checks);
  verdict.hints = std::move(hints);
  return verdict;
}

Check Latency(double ratio) {
  return Check{"latency", ratio > 1.2, ratio, ">", 1.2, "p50 latency is " + std::to_string(ratio)};
}

const WallTime kT0 = WallTime(1767225600s);

// The model alerts as the daemon runs them: the built-in rules in an alert evaluator, judged once
// per finished run.
struct ModelAlerts {
  alerts::Evaluator evaluator{ModelAlertRules(/*enabled=*/true)};

  std::vector<AlertTransition> Apply(const BenchmarkRun& run, const Verdict& verdict, WallTime at) {
    return evaluator.Judge(ModelAlertJudgements(run, verdict),
                           SteadyTime(std::chrono::duration_cast<SteadyTime::duration>(at - kT0)),
                           at);
  }
};

TEST(ModelAlertsTest, AFailingCheckFiresOnceAndAPassingOneResolvesIt) {
  ModelAlerts alerts;
  auto fired =
      alerts.Apply(MakeRun(1), With({Latency(1.5)}, {"throttled during the run (cpu/x)"}), kT0);
  ASSERT_EQ(fired.size(), 1u);
  EXPECT_EQ(fired[0].rule, "model_latency_regression");
  EXPECT_EQ(fired[0].state, AlertState::kFiring);
  EXPECT_EQ(fired[0].severity, AlertSeverity::kWarning);
  EXPECT_EQ(fired[0].labels, (Labels{{"model", "m"}}));
  EXPECT_EQ(fired[0].value, 1.5);
  EXPECT_EQ(fired[0].op, ">");
  EXPECT_EQ(fired[0].threshold, 1.2);
  EXPECT_EQ(fired[0].reason, "threshold");
  EXPECT_EQ(fired[0].annotations, (Labels{{"summary", "p50 latency is 1.500000"},
                                          {"hints", "throttled during the run (cpu/x)"},
                                          {"run", "/api/v1/benchmarks/runs/1"}}));

  // Still slow: still firing, from the same start, with the newest numbers; no transition.
  EXPECT_TRUE(alerts.Apply(MakeRun(2), With({Latency(1.4)}), kT0 + 1h).empty());
  auto active = alerts.evaluator.Active();
  ASSERT_EQ(active.size(), 1u);
  EXPECT_EQ(active[0].value, 1.4);
  EXPECT_EQ(active[0].active_since, kT0);
  EXPECT_EQ(active[0].annotations,
            (Labels{{"summary", "p50 latency is 1.400000"}, {"run", "/api/v1/benchmarks/runs/2"}}));

  // A failed run cannot judge latency: nothing changes.
  EXPECT_TRUE(alerts.Apply(MakeRun(3), With({Check{"failed", false, 0.0, ">=", 1, "ok"}}), kT0 + 2h)
                  .empty());
  EXPECT_EQ(alerts.evaluator.Active().size(), 1u);

  const auto resolved = alerts.Apply(MakeRun(4), With({Latency(1.0)}), kT0 + 3h);
  ASSERT_EQ(resolved.size(), 1u);
  EXPECT_EQ(resolved[0].state, AlertState::kResolved);
  EXPECT_EQ(resolved[0].reason, "cleared");
  EXPECT_EQ(resolved[0].active_since, kT0);
  EXPECT_EQ(resolved[0].value, 1.0);
  EXPECT_EQ(resolved[0].annotations,
            (Labels{{"summary", "p50 latency is 1.000000"}, {"run", "/api/v1/benchmarks/runs/4"}}));
  EXPECT_TRUE(alerts.evaluator.Active().empty());
}

TEST(ModelAlertsTest, EachModelAndCheckIsItsOwnAlert) {
  ModelAlerts alerts;
  alerts.Apply(MakeRun(1, "a"),
               With({Latency(2), Check{"latency_budget", true, 30.0, ">", 20, "x"}}), kT0);
  alerts.Apply(MakeRun(2, "b"), With({Check{"failed", true, 1.0, ">=", 1, "crashed"}}), kT0);
  const auto active = alerts.evaluator.Active();
  ASSERT_EQ(active.size(), 3u);
  EXPECT_EQ(active[0].rule, "model_benchmark_failed");
  EXPECT_EQ(active[1].rule, "model_latency_over_budget");
  EXPECT_EQ(active[1].severity, AlertSeverity::kCritical);
  EXPECT_EQ(active[2].rule, "model_latency_regression");

  const auto metrics = alerts.evaluator.Metrics(kT0);
  ASSERT_EQ(metrics.size(), ModelAlertRules(true).size());
  for (const Sample& sample : metrics) {
    const std::string& rule = sample.labels[0].value;
    const double expected = rule == "model_benchmark_failed" ||
                                    rule == "model_latency_over_budget" ||
                                    rule == "model_latency_regression"
                                ? 1
                                : 0;
    EXPECT_EQ(sample.value, expected) << rule;
  }

  // "a" leaves the configuration: its alerts resolve.
  const auto removed = alerts.evaluator.RetainEvents(
      [](const Labels& labels) { return LabelValue(labels, "model") == "b"; }, kT0 + 1min);
  ASSERT_EQ(removed.size(), 2u);
  EXPECT_EQ(removed[0].reason, "rule_removed");
  EXPECT_EQ(removed[0].labels, (Labels{{"model", "a"}}));
  EXPECT_EQ(alerts.evaluator.Active().size(), 1u);
}

TEST(ModelAlertsTest, RestoredAlertsKeepFiringWithoutANewEntry) {
  AlertTransition stored;
  stored.rule = "model_energy_regression";
  stored.state = AlertState::kFiring;
  stored.severity = AlertSeverity::kWarning;
  stored.labels = {{"model", "m"}};
  stored.value = 1.6;
  stored.op = ">";
  stored.threshold = 1.2;
  stored.at = kT0;
  stored.active_since = stored.at;
  stored.annotations = {{"summary", "energy is 1.6 x the baseline"}};
  AlertTransition other = stored;
  other.rule = "thermal_near_passive_trip";

  ModelAlerts alerts;
  const auto dropped = alerts.evaluator.Restore({stored, other}, SteadyTime(1h), kT0 + 1h);
  ASSERT_EQ(dropped.size(), 1u);  // The evaluator has no thermal rule.
  EXPECT_EQ(dropped[0].rule, "thermal_near_passive_trip");
  const auto active = alerts.evaluator.Active();
  ASSERT_EQ(active.size(), 1u);
  EXPECT_EQ(active[0].rule, "model_energy_regression");
  EXPECT_EQ(active[0].op, ">");
  EXPECT_EQ(active[0].threshold, 1.2);
  EXPECT_EQ(active[0].annotations, stored.annotations);
  EXPECT_TRUE(IsModelAlertRule("model_energy_regression"));
  EXPECT_FALSE(IsModelAlertRule("thermal_near_passive_trip"));
  const auto resolved =
      alerts.Apply(MakeRun(9), With({Check{"energy", false, 1.0, ">", 1.2, "ok"}}), kT0 + 2h);
  ASSERT_EQ(resolved.size(), 1u);
  EXPECT_EQ(resolved[0].active_since, stored.at);
}

TEST(ModelAlertsTest, DisabledRulesNeitherFireNorExport) {
  alerts::Evaluator evaluator(ModelAlertRules(/*enabled=*/false));
  Verdict verdict = With({Latency(2)});
  EXPECT_TRUE(
      evaluator.Judge(ModelAlertJudgements(MakeRun(1), verdict), SteadyTime(0s), kT0).empty());
  EXPECT_TRUE(evaluator.Active().empty());
  EXPECT_TRUE(evaluator.Metrics(kT0).empty());
}

}  // namespace
}  // namespace edgemond::selfbench
