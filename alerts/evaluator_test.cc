#include "alerts/evaluator.h"

#include <gtest/gtest.h>

#include <cmath>

#include "alerts/recording_sink.h"
#include "tests/testing/fake_clock.h"

namespace edgemond::alerts {
namespace {

using std::chrono::milliseconds;
using std::chrono::minutes;
using std::chrono::seconds;

constexpr MetricDesc kTemp{"edgemond_thermal_zone_celsius", "test", MetricType::kGauge, "celsius"};
constexpr MetricDesc kRatio{"edgemond_memory_available_ratio", "test", MetricType::kGauge, "ratio"};
constexpr MetricDesc kCounter{"edgemond_swap_in_bytes_total", "test", MetricType::kCounter,
                              "bytes"};

Rule HotRule() {
  Rule rule;
  rule.name = "zone_hot";
  rule.selector.name = "edgemond_thermal_zone_celsius";
  rule.op = Comparison::kGreater;
  rule.trigger = 85;
  rule.clear = 80;
  rule.for_duration = seconds(3);
  return rule;
}

Sample Temp(double celsius, const std::string& zone = "cpu") {
  return Sample{&kTemp, {{"zone", zone}}, celsius, "", {}};
}

Sample MissingTemp(const std::string& zone = "cpu") {
  return Sample{&kTemp, {{"zone", zone}}, std::nullopt, "EIO: sensor read failed", {}};
}

// Drives an Evaluator one collection per second, sending transitions to a RecordingSink as the
// daemon does.
class EvaluatorTest : public ::testing::Test {
 protected:
  void Use(std::vector<Rule> rules) { evaluator_ = std::make_unique<Evaluator>(std::move(rules)); }

  // One collection: advances the clock by a second, evaluates, records the transitions.
  void Tick(const std::vector<Sample>& samples) {
    clock_.Advance(seconds(1));
    for (const AlertTransition& t : evaluator_->Evaluate(samples, clock_.Now(), clock_.WallNow())) {
      ASSERT_TRUE(sink_.Emit(t).ok());
    }
  }

  std::size_t Count(AlertState state) const {
    std::size_t n = 0;
    for (const AlertTransition& t : sink_.transitions()) n += t.state == state ? 1 : 0;
    return n;
  }

  AlertState StateOf(const std::string& zone = "cpu") const {
    for (const ActiveAlert& alert : evaluator_->Active()) {
      if (alert.labels == Labels{{"zone", zone}}) return alert.state;
    }
    return AlertState::kInactive;
  }

  testing::FakeClock clock_;
  RecordingSink sink_;
  std::unique_ptr<Evaluator> evaluator_;
};

TEST_F(EvaluatorTest, FiresAfterForAndResolvesOnceAtTheClearThreshold) {
  Use({HotRule()});
  Tick({Temp(86)});
  EXPECT_EQ(StateOf(), AlertState::kPending);
  Tick({Temp(87)});
  Tick({Temp(88)});
  EXPECT_TRUE(sink_.transitions().empty());
  Tick({Temp(88)});  // 3 s after it became active.
  ASSERT_EQ(sink_.transitions().size(), 1u);
  const AlertTransition firing = sink_.transitions()[0];  // A copy: the sink grows below.
  EXPECT_EQ(firing.state, AlertState::kFiring);
  EXPECT_EQ(firing.rule, "zone_hot");
  EXPECT_EQ(firing.reason, "threshold");
  EXPECT_EQ(firing.value, 88);
  EXPECT_EQ(firing.threshold, 85);
  EXPECT_EQ(firing.clear_threshold, 80);
  EXPECT_EQ(firing.op, ">");
  EXPECT_EQ(firing.labels, (Labels{{"zone", "cpu"}}));
  EXPECT_EQ(firing.at - firing.active_since, seconds(3));
  EXPECT_EQ(StateOf(), AlertState::kFiring);

  Tick({Temp(81)});  // Below the trigger, above the clear threshold: still firing.
  EXPECT_EQ(sink_.transitions().size(), 1u);
  Tick({Temp(80)});  // "> 80" no longer holds.
  ASSERT_EQ(sink_.transitions().size(), 2u);
  EXPECT_EQ(sink_.transitions()[1].state, AlertState::kResolved);
  EXPECT_EQ(sink_.transitions()[1].reason, "cleared");
  EXPECT_EQ(sink_.transitions()[1].value, 80);
  EXPECT_EQ(sink_.transitions()[1].active_since, firing.active_since);
  EXPECT_TRUE(evaluator_->Active().empty());
}

// ALERTS.md: a value oscillating 84-86 with trigger 85 / clear 80 gives one firing and at most
// one resolve.
TEST_F(EvaluatorTest, OscillatingAroundTheTriggerFiresOnceAndNeverFlaps) {
  Use({HotRule()});
  for (int i = 0; i < 200; ++i) Tick({Temp(i % 2 == 0 ? 86 : 84)});
  EXPECT_EQ(Count(AlertState::kFiring), 1u);
  EXPECT_EQ(Count(AlertState::kResolved), 0u);
  for (int i = 0; i < 20; ++i) Tick({Temp(70 + (i % 2))});
  EXPECT_EQ(Count(AlertState::kFiring), 1u);
  EXPECT_EQ(Count(AlertState::kResolved), 1u);
}

// The same input with equal thresholds (no hysteresis) flaps: the test above would fail without
// a separate clear threshold.
TEST_F(EvaluatorTest, WithoutHysteresisTheSameOscillationFlaps) {
  Rule rule = HotRule();
  rule.clear = 85;
  rule.for_duration = seconds(0);
  Use({rule});
  for (int i = 0; i < 10; ++i) Tick({Temp(i % 2 == 0 ? 86 : 84)});
  EXPECT_EQ(Count(AlertState::kFiring), 5u);
  EXPECT_EQ(Count(AlertState::kResolved), 5u);
}

// Differs from Prometheus on purpose: a dip under the trigger that stays above the clear threshold
// does not restart `for`.
TEST_F(EvaluatorTest, ADipAboveTheClearThresholdDoesNotRestartFor) {
  Rule rule = HotRule();
  rule.for_duration = seconds(5);
  Use({rule});
  Tick({Temp(86)});  // t=1: pending.
  Tick({Temp(86)});
  Tick({Temp(83)});  // t=3: dip under 85, above 80.
  Tick({Temp(86)});
  Tick({Temp(86)});
  EXPECT_TRUE(sink_.transitions().empty());
  Tick({Temp(86)});  // t=6: 5 s after t=1, as if the dip had not happened.
  ASSERT_EQ(Count(AlertState::kFiring), 1u);
  EXPECT_EQ(sink_.transitions()[0].at - sink_.transitions()[0].active_since, seconds(5));
}

TEST_F(EvaluatorTest, ADipToTheClearThresholdCancelsPendingWithoutAnEvent) {
  Use({HotRule()});
  Tick({Temp(86)});
  Tick({Temp(79)});
  EXPECT_EQ(StateOf(), AlertState::kInactive);
  Tick({Temp(86)});  // Starts over.
  Tick({Temp(86)});
  Tick({Temp(86)});
  EXPECT_TRUE(sink_.transitions().empty());
  Tick({Temp(86)});
  EXPECT_EQ(Count(AlertState::kFiring), 1u);
}

TEST_F(EvaluatorTest, AValueBetweenTheThresholdsDoesNotStartAnAlert) {
  Use({HotRule()});
  for (int i = 0; i < 10; ++i) Tick({Temp(83)});
  EXPECT_TRUE(evaluator_->Active().empty());
  EXPECT_TRUE(sink_.transitions().empty());
}

// ALERTS.md: a collector gap must not log "resolved" under the default policy.
TEST_F(EvaluatorTest, ACollectorGapDoesNotResolveUnderTheDefaultPolicy) {
  Rule rule = HotRule();
  rule.for_duration = seconds(0);
  Use({rule});
  Tick({Temp(90)});
  ASSERT_EQ(Count(AlertState::kFiring), 1u);
  for (int i = 0; i < 30; ++i) Tick({});               // The collector failed: no sample at all.
  for (int i = 0; i < 30; ++i) Tick({MissingTemp()});  // The sensor read failed.
  EXPECT_EQ(sink_.transitions().size(), 1u);
  EXPECT_EQ(StateOf(), AlertState::kFiring);
  ASSERT_EQ(evaluator_->Active().size(), 1u);
  EXPECT_FALSE(evaluator_->Active()[0].value.has_value());
  EXPECT_TRUE(evaluator_->Active()[0].missing_since.has_value());
  Tick({Temp(88)});  // Back, still hot: nothing to say.
  EXPECT_EQ(sink_.transitions().size(), 1u);
  EXPECT_FALSE(evaluator_->Active()[0].missing_since.has_value());
}

TEST_F(EvaluatorTest, KeptStateResolvesAsNoDataAfterTheTimeout) {
  Rule rule = HotRule();
  rule.for_duration = seconds(0);
  rule.no_data_timeout = seconds(10);
  Use({rule});
  Tick({Temp(90)});
  for (int i = 0; i < 10; ++i) Tick({});  // Missing since the first of these: 9 s.
  EXPECT_EQ(sink_.transitions().size(), 1u);
  Tick({});  // 10 s.
  ASSERT_EQ(sink_.transitions().size(), 2u);
  EXPECT_EQ(sink_.transitions()[1].state, AlertState::kResolved);
  EXPECT_EQ(sink_.transitions()[1].reason, "no_data");
  EXPECT_FALSE(sink_.transitions()[1].value.has_value());
  for (int i = 0; i < 20; ++i) Tick({});
  EXPECT_EQ(sink_.transitions().size(), 2u);
}

TEST_F(EvaluatorTest, FirePolicyTreatsMissingDataAsTheCondition) {
  Rule rule = HotRule();
  rule.no_data = NoDataPolicy::kFire;
  Use({rule});
  Tick({Temp(50)});  // Seen once, fine.
  Tick({MissingTemp()});
  EXPECT_EQ(StateOf(), AlertState::kPending);
  Tick({});
  Tick({MissingTemp()});
  Tick({MissingTemp()});
  ASSERT_EQ(Count(AlertState::kFiring), 1u);
  EXPECT_EQ(sink_.transitions()[0].reason, "no_data");
  Tick({Temp(50)});
  ASSERT_EQ(Count(AlertState::kResolved), 1u);
  EXPECT_EQ(sink_.transitions()[1].reason, "cleared");
}

TEST_F(EvaluatorTest, ResolvePolicyTreatsMissingDataAsCleared) {
  Rule rule = HotRule();
  rule.for_duration = seconds(0);
  rule.no_data = NoDataPolicy::kResolve;
  Use({rule});
  Tick({Temp(90)});
  Tick({});
  ASSERT_EQ(sink_.transitions().size(), 2u);
  EXPECT_EQ(sink_.transitions()[1].reason, "no_data");
}

TEST_F(EvaluatorTest, KeepFiringForDelaysTheResolveAndARelapseCancelsIt) {
  Rule rule = HotRule();
  rule.for_duration = seconds(0);
  rule.keep_firing_for = seconds(3);
  Use({rule});
  Tick({Temp(90)});
  Tick({Temp(70)});  // Cleared at t=2.
  Tick({Temp(70)});
  Tick({Temp(82)});  // Back above clear: the resolve is called off.
  Tick({Temp(70)});  // Cleared again at t=5.
  Tick({Temp(70)});
  Tick({Temp(70)});
  EXPECT_EQ(sink_.transitions().size(), 1u);
  Tick({Temp(70)});  // 3 s cleared.
  ASSERT_EQ(sink_.transitions().size(), 2u);
  EXPECT_EQ(sink_.transitions()[1].state, AlertState::kResolved);
}

TEST_F(EvaluatorTest, LessThanRulesClearAboveTheirClearThreshold) {
  Rule rule;
  rule.name = "memory_low";
  rule.selector.name = "edgemond_memory_available_ratio";
  rule.op = Comparison::kLess;
  rule.trigger = 0.10;
  rule.clear = 0.15;
  Use({rule});
  const auto ratio = [](double v) { return Sample{&kRatio, {}, v, "", {}}; };
  Tick({ratio(0.20)});
  Tick({ratio(0.09)});
  ASSERT_EQ(Count(AlertState::kFiring), 1u);
  Tick({ratio(0.12)});
  Tick({ratio(0.149)});
  EXPECT_EQ(Count(AlertState::kResolved), 0u);
  Tick({ratio(0.15)});
  EXPECT_EQ(Count(AlertState::kResolved), 1u);
}

TEST_F(EvaluatorTest, EachSeriesIsItsOwnAlertAndMatchersSelect) {
  Rule rule = HotRule();
  rule.for_duration = seconds(0);
  rule.selector.matchers.push_back({"zone", LabelMatcher::Op::kNotEqual, "ignored"});
  Use({rule});
  Tick({Temp(90, "cpu"), Temp(50, "gpu"), Temp(99, "ignored")});
  Tick({Temp(90, "cpu"), Temp(91, "gpu"), Temp(99, "ignored")});
  ASSERT_EQ(sink_.transitions().size(), 2u);
  EXPECT_EQ(sink_.transitions()[0].labels, (Labels{{"zone", "cpu"}}));
  EXPECT_EQ(sink_.transitions()[1].labels, (Labels{{"zone", "gpu"}}));
  const std::vector<Sample> metrics = evaluator_->Metrics(clock_.WallNow());
  ASSERT_EQ(metrics.size(), 1u);
  EXPECT_EQ(metrics[0].desc->name, "edgemond_alert_firing");
  EXPECT_EQ(metrics[0].labels, (Labels{{"alert", "zone_hot"}, {"severity", "warning"}}));
  EXPECT_EQ(metrics[0].value, 2);
}

TEST_F(EvaluatorTest, RateReduceHandlesCounterResets) {
  Rule rule;
  rule.name = "swapping";
  rule.selector.name = "edgemond_swap_in_bytes_total";
  rule.op = Comparison::kGreater;
  rule.trigger = 1000;
  rule.clear = 500;
  rule.reduce = {ReduceFunction::kRate, seconds(10)};
  Use({rule});
  const auto counter = [](double v) { return Sample{&kCounter, {}, v, "", {}}; };
  Tick({counter(0)});  // One value: no rate yet, and no "missing data" either.
  EXPECT_TRUE(evaluator_->Active().empty());
  double total = 0;
  for (int i = 0; i < 5; ++i) Tick({counter(total += 2000)});
  ASSERT_EQ(Count(AlertState::kFiring), 1u);
  EXPECT_DOUBLE_EQ(*sink_.transitions()[0].value, 2000);
  // The counter resets (a reboot of the source) while still growing 2000/s: no resolve.
  Tick({counter(2000)});
  EXPECT_EQ(Count(AlertState::kResolved), 0u);
  // It stops growing; the 10 s window drains and the rate drops to 0.
  for (int i = 0; i < 12; ++i) Tick({counter(2000)});
  EXPECT_EQ(Count(AlertState::kResolved), 1u);
}

TEST_F(EvaluatorTest, AvgReduceSmoothsASpike) {
  Rule rule = HotRule();
  rule.for_duration = seconds(0);
  rule.reduce = {ReduceFunction::kAvg, seconds(5)};
  Use({rule});
  for (int i = 0; i < 5; ++i) Tick({Temp(70)});
  Tick({Temp(100)});  // avg of 70,70,70,70,70,100 over the last 5 s (ends included) = 75.
  EXPECT_TRUE(sink_.transitions().empty());
  for (int i = 0; i < 5; ++i) Tick({Temp(100)});
  EXPECT_EQ(Count(AlertState::kFiring), 1u);
}

TEST_F(EvaluatorTest, NaNIsMissingDataNotAValue) {
  Rule rule = HotRule();
  rule.for_duration = seconds(0);
  Use({rule});
  Tick({Temp(90)});
  Tick({Temp(std::nan(""))});
  EXPECT_EQ(sink_.transitions().size(), 1u);
  ASSERT_EQ(evaluator_->Active().size(), 1u);
  EXPECT_TRUE(evaluator_->Active()[0].missing_since.has_value());
}

TEST_F(EvaluatorTest, AnnotationsAndRuleLabelsCarryTheValue) {
  Rule rule = HotRule();
  rule.for_duration = seconds(0);
  rule.labels = {{"team", "ops"}};
  rule.annotations = {
      {"summary", "{labels.zone} at {value} C (over {threshold}, team {labels.team})"}};
  Use({rule});
  Tick({Temp(86.5)});
  ASSERT_EQ(sink_.transitions().size(), 1u);
  EXPECT_EQ(sink_.transitions()[0].rule_labels, (Labels{{"team", "ops"}}));
  EXPECT_EQ(sink_.transitions()[0].annotations,
            (Labels{{"summary", "cpu at 86.5 C (over 85, team ops)"}}));
  EXPECT_EQ(evaluator_->Active()[0].annotations, sink_.transitions()[0].annotations);
}

TEST_F(EvaluatorTest, DisabledRulesAreNotEvaluated) {
  Rule rule = HotRule();
  rule.enabled = false;
  Use({rule});
  for (int i = 0; i < 10; ++i) Tick({Temp(99)});
  EXPECT_TRUE(sink_.transitions().empty());
  EXPECT_TRUE(evaluator_->Metrics(clock_.WallNow()).empty());
}

// The index from metric to rules is built once per rule set: a reload to rules on another metric,
// or a second description with the same name, must still find its samples.
TEST_F(EvaluatorTest, RulesFindTheirSamplesAfterAReloadAndAcrossDescriptions) {
  Rule hot = HotRule();
  hot.for_duration = seconds(0);
  Use({hot});
  Rule low = hot;
  low.name = "memory_low";
  low.selector.name = "edgemond_memory_available_ratio";
  low.op = Comparison::kLess;
  low.trigger = 0.1;
  low.clear = 0.2;
  Tick({Temp(70), Sample{&kRatio, {}, 0.05, "", {}}});
  EXPECT_TRUE(sink_.transitions().empty());
  EXPECT_TRUE(evaluator_->SetRules({hot, low}, clock_.WallNow()).empty());
  Tick({Temp(70), Sample{&kRatio, {}, 0.05, "", {}}});
  ASSERT_EQ(sink_.transitions().size(), 1u);
  EXPECT_EQ(sink_.transitions()[0].rule, "memory_low");
  // Another description of the zone metric (as a second collector might declare it).
  static constexpr MetricDesc kOtherTemp{"edgemond_thermal_zone_celsius", "other",
                                         MetricType::kGauge, "celsius"};
  Tick({Sample{&kOtherTemp, {{"zone", "gpu"}}, 99.0, "", {}}, Sample{&kRatio, {}, 0.05, "", {}}});
  ASSERT_EQ(sink_.transitions().size(), 2u);
  EXPECT_EQ(sink_.transitions()[1].rule, "zone_hot");
  EXPECT_EQ(StateOf("gpu"), AlertState::kFiring);
}

TEST_F(EvaluatorTest, ReloadKeepsStateOfRulesThatStillSelectTheirSeries) {
  Rule rule = HotRule();
  rule.for_duration = seconds(0);
  Use({rule});
  Tick({Temp(90)});
  Rule changed = rule;
  changed.clear = 75;
  changed.annotations = {{"summary", "new text"}};
  EXPECT_TRUE(evaluator_->SetRules({changed}, clock_.WallNow()).empty());
  Tick({Temp(78)});  // Above the new clear threshold: still firing, no new event.
  EXPECT_EQ(sink_.transitions().size(), 1u);
  EXPECT_EQ(StateOf(), AlertState::kFiring);
  Tick({Temp(74)});
  EXPECT_EQ(Count(AlertState::kResolved), 1u);
}

TEST_F(EvaluatorTest, ReloadResolvesAlertsOfRemovedAndNarrowedRules) {
  Rule a = HotRule();
  a.for_duration = seconds(0);
  Rule b = a;
  b.name = "zone_hot_b";
  Use({a, b});
  Tick({Temp(90, "cpu"), Temp(90, "gpu")});
  ASSERT_EQ(sink_.transitions().size(), 4u);
  Rule narrowed = a;
  narrowed.selector.matchers.push_back({"zone", LabelMatcher::Op::kEqual, "gpu"});
  const auto resolved = evaluator_->SetRules({narrowed}, clock_.WallNow());
  ASSERT_EQ(resolved.size(), 3u);
  std::vector<std::string> reasons;
  for (const AlertTransition& t : resolved) {
    EXPECT_EQ(t.state, AlertState::kResolved);
    reasons.push_back(t.rule + "/" + t.labels[0].value + "/" + t.reason);
  }
  std::sort(reasons.begin(), reasons.end());
  EXPECT_EQ(reasons,
            (std::vector<std::string>{"zone_hot/cpu/rule_changed", "zone_hot_b/cpu/rule_removed",
                                      "zone_hot_b/gpu/rule_removed"}));
  ASSERT_EQ(evaluator_->Active().size(), 1u);
  EXPECT_EQ(evaluator_->Active()[0].labels, (Labels{{"zone", "gpu"}}));
}

// ALERTS.md: a restart restores firing alerts and when they began, without logging them again.
TEST_F(EvaluatorTest, RestoredAlertsKeepFiringWithoutANewEvent) {
  Rule rule = HotRule();
  Use({rule});
  AlertTransition was_firing;
  was_firing.rule = "zone_hot";
  was_firing.state = AlertState::kFiring;
  was_firing.labels = {{"zone", "cpu"}};
  was_firing.value = 91;
  was_firing.active_since = clock_.WallNow() - minutes(10);
  was_firing.at = clock_.WallNow() - minutes(9);
  AlertTransition unknown = was_firing;
  unknown.rule = "deleted_rule";
  const auto resolved = evaluator_->Restore({was_firing, unknown}, clock_.Now(), clock_.WallNow());
  ASSERT_EQ(resolved.size(), 1u);
  EXPECT_EQ(resolved[0].rule, "deleted_rule");
  EXPECT_EQ(resolved[0].reason, "rule_removed");

  Tick({Temp(88)});
  EXPECT_TRUE(sink_.transitions().empty());
  ASSERT_EQ(evaluator_->Active().size(), 1u);
  EXPECT_EQ(evaluator_->Active()[0].state, AlertState::kFiring);
  EXPECT_EQ(evaluator_->Active()[0].active_since, was_firing.active_since);
  Tick({Temp(60)});
  ASSERT_EQ(sink_.transitions().size(), 1u);
  EXPECT_EQ(sink_.transitions()[0].state, AlertState::kResolved);
  EXPECT_EQ(sink_.transitions()[0].active_since, was_firing.active_since);
}

Rule EventRule(const std::string& name = "model_slow") {
  Rule rule;
  rule.name = name;
  rule.kind = RuleKind::kEvent;
  rule.severity = AlertSeverity::kCritical;
  return rule;
}

Evaluator::Judgement Judged(bool condition, double value, const std::string& model = "m") {
  return Evaluator::Judgement{"model_slow",
                              {{"model", model}},
                              condition,
                              value,
                              ">",
                              1.2,
                              {{"summary", "ratio " + FormatNumber(value)}}};
}

TEST_F(EvaluatorTest, EventRulesFireAndResolveOnTheirJudgementsAtOnce) {
  Use({HotRule(), EventRule()});
  const auto judge = [&](const Evaluator::Judgement& judgement) {
    clock_.Advance(minutes(1));
    return evaluator_->Judge({judgement}, clock_.Now(), clock_.WallNow());
  };
  EXPECT_TRUE(judge(Judged(false, 1.0)).empty());  // Cleared and not active: nothing.
  const WallTime fired_at = clock_.WallNow() + minutes(1);
  const auto fired = judge(Judged(true, 1.5));
  ASSERT_EQ(fired.size(), 1u);
  EXPECT_EQ(fired[0].state, AlertState::kFiring);
  EXPECT_EQ(fired[0].reason, "threshold");
  EXPECT_EQ(fired[0].severity, AlertSeverity::kCritical);
  EXPECT_EQ(fired[0].op, ">");
  EXPECT_EQ(fired[0].threshold, 1.2);
  EXPECT_EQ(fired[0].annotations, (Labels{{"summary", "ratio 1.5"}}));

  // Judged again: still firing, newest value and annotations, the first start; no transition.
  EXPECT_TRUE(judge(Judged(true, 1.7)).empty());
  ASSERT_EQ(evaluator_->Active().size(), 1u);
  EXPECT_EQ(evaluator_->Active()[0].value, 1.7);
  EXPECT_EQ(evaluator_->Active()[0].annotations, (Labels{{"summary", "ratio 1.7"}}));
  EXPECT_EQ(evaluator_->Active()[0].active_since, fired_at);

  // Collections without any such series never time an event rule's alert out.
  for (int i = 0; i < 3600; ++i) Tick({Temp(20)});
  EXPECT_EQ(evaluator_->Active().size(), 1u);

  const auto resolved = judge(Judged(false, 1.1));
  ASSERT_EQ(resolved.size(), 1u);
  EXPECT_EQ(resolved[0].state, AlertState::kResolved);
  EXPECT_EQ(resolved[0].reason, "cleared");
  EXPECT_EQ(resolved[0].value, 1.1);
  EXPECT_EQ(resolved[0].active_since, fired_at);
  EXPECT_TRUE(evaluator_->Active().empty());
}

TEST_F(EvaluatorTest, JudgementsOfThresholdDisabledOrUnknownRulesAreIgnored) {
  Rule disabled = EventRule("model_off");
  disabled.enabled = false;
  Use({HotRule(), disabled});
  Evaluator::Judgement judgement = Judged(true, 2);
  for (const char* rule : {"zone_hot", "model_off", "no_such_rule"}) {
    judgement.rule = rule;
    EXPECT_TRUE(evaluator_->Judge({judgement}, clock_.Now(), clock_.WallNow()).empty()) << rule;
  }
  EXPECT_TRUE(evaluator_->Active().empty());
}

TEST_F(EvaluatorTest, RetainEventsResolvesTheAlertsItRejects) {
  Use({HotRule(), EventRule()});
  for (int i = 0; i < 5; ++i) Tick({Temp(90)});
  ASSERT_EQ(Count(AlertState::kFiring), 1u);  // zone_hot
  ASSERT_EQ(
      evaluator_
          ->Judge({Judged(true, 2, "a"), Judged(true, 2, "b")}, clock_.Now(), clock_.WallNow())
          .size(),
      2u);
  const auto removed = evaluator_->RetainEvents(
      [](const Labels& labels) { return LabelValue(labels, "model") == "b"; }, clock_.WallNow());
  ASSERT_EQ(removed.size(), 1u);
  EXPECT_EQ(removed[0].rule, "model_slow");
  EXPECT_EQ(removed[0].labels, (Labels{{"model", "a"}}));
  EXPECT_EQ(removed[0].reason, "rule_removed");
  EXPECT_EQ(removed[0].annotations, (Labels{{"summary", "ratio 2"}}));
  EXPECT_EQ(evaluator_->Active().size(), 2u);  // zone_hot (threshold rules are kept) and "b".
}

TEST_F(EvaluatorTest, EventAlertsSurviveAReloadAndResolveWhenTheirRuleIsDisabled) {
  Use({EventRule()});
  ASSERT_EQ(evaluator_->Judge({Judged(true, 2)}, clock_.Now(), clock_.WallNow()).size(), 1u);
  EXPECT_TRUE(evaluator_->SetRules({HotRule(), EventRule()}, clock_.WallNow()).empty());
  EXPECT_EQ(evaluator_->Active().size(), 1u);
  Rule disabled = EventRule();
  disabled.enabled = false;
  const auto removed = evaluator_->SetRules({HotRule(), disabled}, clock_.WallNow());
  ASSERT_EQ(removed.size(), 1u);
  EXPECT_EQ(removed[0].reason, "rule_removed");
  EXPECT_TRUE(evaluator_->Active().empty());
  EXPECT_EQ(evaluator_->Metrics(clock_.WallNow()).size(), 1u);  // zone_hot's only.
}

TEST_F(EvaluatorTest, RestoredEventAlertsKeepTheirJudgedThresholdAndAnnotations) {
  Use({EventRule()});
  AlertTransition stored;
  stored.rule = "model_slow";
  stored.state = AlertState::kFiring;
  stored.labels = {{"model", "m"}};
  stored.value = 1.5;
  stored.op = ">=";
  stored.threshold = 1.25;
  stored.clear_threshold = 1.25;
  stored.annotations = {{"summary", "ratio 1.5"}, {"run", "/api/v1/benchmarks/runs/7"}};
  stored.at = clock_.WallNow() - minutes(10);
  stored.active_since = stored.at;
  EXPECT_TRUE(evaluator_->Restore({stored}, clock_.Now(), clock_.WallNow()).empty());
  const auto active = evaluator_->Active();
  ASSERT_EQ(active.size(), 1u);
  EXPECT_EQ(active[0].op, ">=");
  EXPECT_EQ(active[0].threshold, 1.25);
  EXPECT_EQ(active[0].annotations, stored.annotations);
  EXPECT_EQ(active[0].active_since, stored.at);
  // The next judgement of the same alert continues it.
  const auto resolved =
      evaluator_->Judge({Judged(false, 1.0)}, clock_.Now() + minutes(1), clock_.WallNow());
  ASSERT_EQ(resolved.size(), 1u);
  EXPECT_EQ(resolved[0].active_since, stored.at);
}

}  // namespace
}  // namespace edgemond::alerts
