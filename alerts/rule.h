// Rule: one threshold alert rule, as parsed from the configuration (alerts/rule_parser.h) and
// evaluated by the Evaluator (alerts/evaluator.h). docs/alerts.md documents every key.
//
// A rule selects series by metric name and labels, reduces each series' recent values to one
// number (the last value by default), and compares that number with two thresholds, in the manner
// of a Schmitt trigger:
//   - the alert becomes active when `value <op> trigger`;
//   - it stays active while `value <op> clear`.
// For op ">" with trigger 85 and clear 80, a value that oscillates between 84 and 86 fires once
// and does not resolve until it drops to 80 or below. `clear` is required, so every rule states
// its hysteresis (equal thresholds are allowed for on/off series such as edgemond_throttled).

#ifndef EDGEMOND_ALERTS_RULE_H_
#define EDGEMOND_ALERTS_RULE_H_

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/alert.h"
#include "core/query.h"
#include "core/result.h"
#include "core/sample.h"

namespace edgemond::alerts {

enum class Comparison { kGreater, kGreaterOrEqual, kLess, kLessOrEqual };

// ">", ">=", "<", "<=".
std::string_view ComparisonSymbol(Comparison op);
Result<Comparison> ParseComparison(std::string_view symbol);
bool Compare(Comparison op, double value, double threshold);

// What a rule does with a series whose data is missing: a sample without a value (the sensor
// could not be read) or no sample at all (the collector failed, the device went away).
enum class NoDataPolicy {
  // Nothing changes for up to no_data_timeout; after that a firing alert resolves with reason
  // "no_data" and a pending one is dropped. The default: a collector gap is not a recovery.
  kKeep,
  // Missing data counts as the condition being met (pending, then firing after `for`).
  kFire,
  // Missing data counts as the condition being cleared (Prometheus' behaviour), subject to
  // keep_firing_for.
  kResolve,
};

std::string_view NoDataPolicyName(NoDataPolicy policy);  // "keep", "fire", "resolve"
Result<NoDataPolicy> ParseNoDataPolicy(std::string_view name);

// How a series' recent values become the one number that is compared.
enum class ReduceFunction {
  kLast,   // The newest value (no window).
  kAvg,    // Mean of the values in the window.
  kMin,    // Smallest value in the window.
  kMax,    // Largest value in the window.
  kDelta,  // Newest minus oldest value in the window (gauges).
  kRate,   // Per-second increase over the window, counter resets handled (counters).
};

std::string_view ReduceFunctionName(ReduceFunction function);
Result<ReduceFunction> ParseReduceFunction(std::string_view name);

struct Reduce {
  ReduceFunction function = ReduceFunction::kLast;
  // Values younger than this are reduced; 0 for kLast, > 0 for every other function.
  std::chrono::milliseconds window{0};
};

// Who decides whether a rule's condition holds.
enum class RuleKind {
  // The Evaluator, from the samples of every collection (Evaluate()).
  kThreshold,
  // The caller, once per event such as a finished benchmark run (Evaluator::Judge()): the
  // selector, thresholds, reduce, durations, no-data policy and annotation templates are unused;
  // each judgement brings its own value, comparison and rendered annotations.
  kEvent,
};

struct Rule {
  std::string name;  // Unique; [a-z][a-z0-9_]*.
  RuleKind kind = RuleKind::kThreshold;
  SeriesSelector selector;  // Metric name and label matchers ("match"/"match_not").
  Comparison op = Comparison::kGreater;
  double trigger = 0;  // Becomes active when value <op> trigger.
  double clear = 0;    // Stays active while value <op> clear.
  Reduce reduce;
  std::chrono::milliseconds for_duration{0};     // Active this long before firing.
  std::chrono::milliseconds keep_firing_for{0};  // Cleared this long before resolving.
  AlertSeverity severity = AlertSeverity::kWarning;
  NoDataPolicy no_data = NoDataPolicy::kKeep;
  std::chrono::milliseconds no_data_timeout = std::chrono::minutes(5);  // For kKeep.
  Labels labels;       // Added to every alert of this rule (a rule label wins over a series').
  Labels annotations;  // Templates: {value}, {value_percent}, {threshold}, {clear}, {rule},
                       // {severity}, {labels.NAME}.
  bool enabled = true;
  std::string source;  // Where the rule was defined ("/etc/edgemond/alerts.d/10-thermal.json:4").

  // Whether `value` meets the trigger / still meets the clear condition.
  bool Triggered(double value) const { return Compare(op, value, trigger); }
  bool StillActive(double value) const { return Compare(op, value, clear); }
};

// Renders an annotation template. REQUIRES: `text` passed ValidateTemplate.
//   {value} / {value_percent} -> "86.4" / "8.2" (value * 100), "n/a" when there is no value
//   {threshold} / {clear}     -> the rule's thresholds
//   {rule} / {severity}       -> the rule's name and severity
//   {labels.zone}             -> the label's value ("" when the series has no such label)
//   {{ and }}                 -> literal braces
std::string RenderTemplate(std::string_view text, const Rule& rule, const Labels& labels,
                           std::optional<double> value);

// kInvalidArgument naming the first unknown placeholder or unbalanced brace.
Status ValidateTemplate(std::string_view text);

// A number as rules and events print it: up to 6 significant digits, no trailing zeros
// ("86.4", "0.1", "1.5e+09").
std::string FormatNumber(double value);

// A duration as rules print it: "0s", "90s", "5m", "1h30m", "250ms".
std::string FormatDuration(std::chrono::milliseconds duration);

// Parses "0s", "250ms", "90s", "5m", "1h30m", "2d" (units may be combined, largest first).
Result<std::chrono::milliseconds> ParseDuration(std::string_view text);

}  // namespace edgemond::alerts

#endif  // EDGEMOND_ALERTS_RULE_H_
