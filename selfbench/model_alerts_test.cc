#include "selfbench/model_alerts.h"

#include <gtest/gtest.h>

namespace edgemond::selfbench {
namespace {

using namespace std::chrono_literals;

constexpr MetricDesc kFiring{"edgemond_alert_firing", "", MetricType::kGauge, ""};

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

TEST(ModelAlertsTest, AFailingCheckFiresOnceAndAPassingOneResolvesIt) {
  ModelAlerts alerts;
  const WallTime t0 = WallTime(1767225600s);
  auto fired =
      alerts.Apply(MakeRun(1), With({Latency(1.5)}, {"throttled during the run (cpu/x)"}), t0);
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
  EXPECT_TRUE(alerts.Apply(MakeRun(2), With({Latency(1.4)}), t0 + 1h).empty());
  ASSERT_EQ(alerts.Active().size(), 1u);
  EXPECT_EQ(alerts.Active()[0].value, 1.4);
  EXPECT_EQ(alerts.Active()[0].active_since, t0);

  // A failed run cannot judge latency: nothing changes.
  EXPECT_TRUE(alerts.Apply(MakeRun(3), With({Check{"failed", false, 0.0, ">=", 1, "ok"}}), t0 + 2h)
                  .empty());
  EXPECT_EQ(alerts.Active().size(), 1u);

  const auto resolved = alerts.Apply(MakeRun(4), With({Latency(1.0)}), t0 + 3h);
  ASSERT_EQ(resolved.size(), 1u);
  EXPECT_EQ(resolved[0].state, AlertState::kResolved);
  EXPECT_EQ(resolved[0].reason, "cleared");
  EXPECT_EQ(resolved[0].active_since, t0);
  EXPECT_EQ(resolved[0].value, 1.0);
  EXPECT_TRUE(alerts.Active().empty());
}

TEST(ModelAlertsTest, EachModelAndCheckIsItsOwnAlert) {
  ModelAlerts alerts;
  const WallTime t0 = WallTime(1767225600s);
  alerts.Apply(MakeRun(1, "a"),
               With({Latency(2), Check{"latency_budget", true, 30.0, ">", 20, "x"}}), t0);
  alerts.Apply(MakeRun(2, "b"), With({Check{"failed", true, 1.0, ">=", 1, "crashed"}}), t0);
  const auto active = alerts.Active();
  ASSERT_EQ(active.size(), 3u);
  EXPECT_EQ(active[0].rule, "model_benchmark_failed");
  EXPECT_EQ(active[1].rule, "model_latency_over_budget");
  EXPECT_EQ(active[1].severity, AlertSeverity::kCritical);
  EXPECT_EQ(active[2].rule, "model_latency_regression");

  const auto metrics = alerts.Metrics(kFiring, t0);
  ASSERT_EQ(metrics.size(), ModelAlerts::Rules().size());
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
  const auto removed = alerts.Retain({"b"}, t0 + 1min);
  ASSERT_EQ(removed.size(), 2u);
  EXPECT_EQ(removed[0].reason, "rule_removed");
  EXPECT_EQ(alerts.Active().size(), 1u);
}

TEST(ModelAlertsTest, RestoredAlertsKeepFiringWithoutANewEntry) {
  AlertTransition stored;
  stored.rule = "model_energy_regression";
  stored.state = AlertState::kFiring;
  stored.labels = {{"model", "m"}};
  stored.value = 1.6;
  stored.op = ">";
  stored.threshold = 1.2;
  stored.at = WallTime(1767225600s);
  stored.active_since = stored.at;
  AlertTransition other = stored;
  other.rule = "thermal_near_passive_trip";

  ModelAlerts alerts;
  alerts.Restore({stored, other});
  ASSERT_EQ(alerts.Active().size(), 1u);
  EXPECT_EQ(alerts.Active()[0].rule, "model_energy_regression");
  EXPECT_TRUE(ModelAlerts::IsModelRule("model_energy_regression"));
  EXPECT_FALSE(ModelAlerts::IsModelRule("thermal_near_passive_trip"));
  const auto resolved =
      alerts.Apply(MakeRun(9), With({Check{"energy", false, 1.0, ">", 1.2, "ok"}}), stored.at + 1h);
  ASSERT_EQ(resolved.size(), 1u);
  EXPECT_EQ(resolved[0].active_since, stored.at);
}

}  // namespace
}  // namespace edgemond::selfbench
