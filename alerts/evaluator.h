// Evaluator: the alert state machine. Pure: no I/O, no clock of its own, no threads. The daemon
// calls Evaluate() once per collection with the samples just collected and the time, and hands the
// transitions it returns to the sinks (journal, history).
//
// Per alert (one rule on one series):
//
//   inactive --value <op> trigger--> pending --active for `for`--> firing
//      ^                               |                              |
//      +------value no longer <op> clear (no event)                   |
//      +------value no longer <op> clear for `keep_firing_for`: resolved (event)
//
// Exactly one transition is returned per change (firing, resolved), never one per tick. Pending is
// a state (visible in Active()), not an event.
//
// Hysteresis during `for`: a pending alert whose value dips below the trigger but stays beyond
// the clear threshold stays pending, and its `for` clock keeps running. This differs from
// Prometheus on purpose, where any evaluation without the condition restarts `for`: with
// trigger 85 and clear 80, a temperature hovering at 84-86 fires after `for` instead of never.
//
// Missing data follows the rule's policy (alerts/rule.h: NoDataPolicy). By default (keep) a
// collector gap changes nothing for no_data_timeout, so a failed read is never logged as a
// recovery.
//
// Event rules (RuleKind::kEvent, such as the self-benchmarks' model alerts) share the state,
// the transitions, Active(), Metrics() and Restore() with threshold rules, but their condition is
// judged by the caller, once per event (Judge()): a judgement that holds fires the alert at once,
// one that no longer holds resolves it at once, and no judgement changes nothing (an event rule
// never times out for lack of data).
//
// Thread safety: not thread-safe; call from one thread (the daemon's loop). Active() returns a
// copy the caller may publish to other threads.

#ifndef EDGEMOND_ALERTS_EVALUATOR_H_
#define EDGEMOND_ALERTS_EVALUATOR_H_

#include <chrono>
#include <cstddef>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "alerts/rule.h"
#include "core/alert.h"
#include "core/clock.h"
#include "core/sample.h"

namespace edgemond::alerts {

class Evaluator {
 public:
  // One event rule's verdict on one alert (Judge()).
  struct Judgement {
    std::string rule;
    Labels labels;           // The alert's ({model="detector"}).
    bool condition = false;  // Holds: the alert fires; no longer holds: it resolves.
    std::optional<double> value;
    std::string op;  // What `value` was compared with, as the alert reports it.
    double threshold = 0;
    Labels annotations;  // Rendered.
  };

  // Disabled rules are kept (rules() lists them) but never evaluated.
  explicit Evaluator(std::vector<Rule> rules = {});

  // Evaluates every enabled rule against one collection. `now` (monotonic) measures `for`,
  // keep_firing_for, no-data timeouts and reduce windows; `wall_now` stamps the transitions.
  // REQUIRES: `now` never goes backwards between calls.
  std::vector<AlertTransition> Evaluate(const std::vector<Sample>& samples, SteadyTime now,
                                        WallTime wall_now);

  // Replaces the rules (configuration reload). An alert of a rule whose definition did not change
  // keeps its state; so does one whose rule changed thresholds, durations or annotations but still
  // selects its series. Firing alerts of rules that were removed or disabled resolve with reason
  // "rule_removed", those whose series the new selector no longer matches with "rule_changed".
  std::vector<AlertTransition> SetRules(std::vector<Rule> rules, WallTime wall_now);

  // Re-creates alerts that were firing when the daemon last stopped (their last transition in the
  // history was kFiring), so a restart neither logs them again nor forgets when they began. The
  // next Evaluate() keeps them firing or resolves them as usual. Alerts of unknown or disabled
  // rules are resolved at once ("rule_removed") and returned.
  std::vector<AlertTransition> Restore(const std::vector<AlertTransition>& firing, SteadyTime now,
                                       WallTime wall_now);

  // Applies the judgements of event rules; judgements of unknown, disabled or threshold rules are
  // ignored. A firing alert that is judged again keeps its start and takes the newest value and
  // annotations, without a transition.
  std::vector<AlertTransition> Judge(const std::vector<Judgement>& judgements, SteadyTime now,
                                     WallTime wall_now);

  // Resolves ("rule_removed") and forgets the firing alerts of event rules whose labels `keep`
  // rejects (a model that left the configuration).
  std::vector<AlertTransition> RetainEvents(const std::function<bool(const Labels&)>& keep,
                                            WallTime wall_now);

  // Every pending and firing alert, sorted by rule then labels.
  std::vector<ActiveAlert> Active() const;

  // edgemond_alert_firing{alert,severity}: for every enabled rule, how many of its alerts fire.
  std::vector<Sample> Metrics(WallTime now) const;
  static const MetricDesc& FiringMetric();

  const std::vector<Rule>& rules() const { return rules_; }

  // Most values a reduce window holds per series; older ones are dropped first.
  static constexpr std::size_t kMaxWindowPoints = 4096;

 private:
  // What the last judgement of an event rule's alert said, in place of the rule's thresholds and
  // annotation templates.
  struct Judged {
    std::string op;
    double threshold = 0;
    Labels annotations;
  };
  struct Instance {
    Labels series_labels;          // As the collector produced them.
    std::optional<Judged> judged;  // Event rules only.
    AlertState state = AlertState::kInactive;
    SteadyTime active_since{};
    WallTime active_since_wall{};
    std::optional<WallTime> firing_since;
    std::optional<SteadyTime> clearing_since;  // Firing, condition cleared since then.
    std::optional<SteadyTime> missing_since;
    std::optional<WallTime> missing_since_wall;
    std::optional<double> value;                       // Last reduced value.
    std::deque<std::pair<SteadyTime, double>> window;  // For reduce windows.
    bool seen = false;                                 // In the current Evaluate().
  };
  struct RuleState {
    // By SeriesKey of the series.
    std::map<std::string, Instance> instances;
  };

  void EvaluateRule(const Rule& rule, RuleState& state, const std::vector<const Sample*>& samples,
                    SteadyTime now, WallTime wall_now, std::vector<AlertTransition>& out) const;
  // One step with data (`value`) or without (nullopt: missing).
  void Step(const Rule& rule, Instance& instance, std::optional<double> value, SteadyTime now,
            WallTime wall_now, std::vector<AlertTransition>& out) const;
  // One step of the state machine once it is known whether the condition holds (`active`).
  void Advance(const Rule& rule, Instance& instance, bool active, bool by_missing_data,
               SteadyTime now, WallTime wall_now, std::vector<AlertTransition>& out) const;
  void Activate(const Rule& rule, Instance& instance, SteadyTime now, WallTime wall_now,
                bool by_missing_data, std::vector<AlertTransition>& out) const;
  void Clear(const Rule& rule, Instance& instance, SteadyTime now, WallTime wall_now,
             std::string_view reason, std::vector<AlertTransition>& out) const;
  std::optional<double> Reduced(const Rule& rule, Instance& instance, SteadyTime now,
                                double value) const;
  AlertTransition MakeTransition(const Rule& rule, const Instance& instance, AlertState state,
                                 WallTime at, std::string_view reason) const;
  static Labels AlertLabels(const Rule& rule, const Labels& series_labels);
  // The annotations an alert reports: the judged ones, or the rule's templates rendered.
  static Labels Annotations(const Rule& rule, const Instance& instance);

  // Sets rules_ and everything derived from them.
  void AdoptRules(std::vector<Rule> rules);

  std::vector<Rule> rules_;
  std::vector<RuleState> states_;  // Parallel to rules_.
  // Which enabled rules select a metric, by its description (static storage, so the set of keys
  // is bounded): filled as descriptions are first seen, emptied when the rules change.
  std::unordered_map<const MetricDesc*, std::vector<std::size_t>> rules_by_desc_;
  // Per rule (parallel to rules_), the samples of the collection being evaluated that it selects
  // by name. Only valid during Evaluate(); kept between calls for its capacity.
  std::vector<std::vector<const Sample*>> selected_;
};

}  // namespace edgemond::alerts

#endif  // EDGEMOND_ALERTS_EVALUATOR_H_
