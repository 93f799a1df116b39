#include "alerts/evaluator.h"

#include <algorithm>
#include <cmath>
#include <string_view>
#include <unordered_map>

namespace edgemond::alerts {
namespace {

constexpr MetricDesc kFiring{"edgemond_alert_firing",
                             "How many series an alert rule is firing for (0 when none)",
                             MetricType::kGauge, ""};

}  // namespace

Evaluator::Evaluator(std::vector<Rule> rules) {
  states_.resize(rules.size());
  AdoptRules(std::move(rules));
}

void Evaluator::AdoptRules(std::vector<Rule> rules) {
  rules_ = std::move(rules);
  rules_by_desc_.clear();
  selected_.assign(rules_.size(), {});
}

const MetricDesc& Evaluator::FiringMetric() { return kFiring; }

Labels Evaluator::AlertLabels(const Rule& rule, const Labels& series_labels) {
  Labels labels = series_labels;
  for (const Label& label : rule.labels) {
    const auto same = std::find_if(labels.begin(), labels.end(),
                                   [&](const Label& l) { return l.name == label.name; });
    if (same != labels.end()) {
      same->value = label.value;
    } else {
      labels.push_back(label);
    }
  }
  return labels;
}

AlertTransition Evaluator::MakeTransition(const Rule& rule, const Instance& instance,
                                          AlertState state, WallTime at,
                                          std::string_view reason) const {
  AlertTransition transition;
  transition.rule = rule.name;
  transition.state = state;
  transition.severity = rule.severity;
  transition.labels = instance.series_labels;
  transition.rule_labels = rule.labels;
  transition.value = instance.value;
  if (instance.judged) {
    transition.op = instance.judged->op;
    transition.threshold = transition.clear_threshold = instance.judged->threshold;
  } else {
    transition.op = std::string(ComparisonSymbol(rule.op));
    transition.threshold = rule.trigger;
    transition.clear_threshold = rule.clear;
  }
  transition.at = at;
  transition.active_since = instance.active_since_wall;
  transition.reason = std::string(reason);
  transition.annotations = Annotations(rule, instance);
  return transition;
}

Labels Evaluator::Annotations(const Rule& rule, const Instance& instance) {
  if (instance.judged) return instance.judged->annotations;
  Labels out;
  const Labels labels = AlertLabels(rule, instance.series_labels);
  for (const Label& annotation : rule.annotations) {
    out.push_back(
        Label{annotation.name, RenderTemplate(annotation.value, rule, labels, instance.value)});
  }
  return out;
}

std::optional<double> Evaluator::Reduced(const Rule& rule, Instance& instance, SteadyTime now,
                                         double value) const {
  if (rule.reduce.function == ReduceFunction::kLast) return value;
  auto& window = instance.window;
  window.emplace_back(now, value);
  const SteadyTime oldest = now - rule.reduce.window;
  while (!window.empty() && window.front().first < oldest) window.pop_front();
  while (window.size() > kMaxWindowPoints) window.pop_front();
  switch (rule.reduce.function) {
    case ReduceFunction::kLast:
      return value;
    case ReduceFunction::kAvg: {
      double sum = 0;
      for (const auto& point : window) sum += point.second;
      return sum / static_cast<double>(window.size());
    }
    case ReduceFunction::kMin: {
      double min = window.front().second;
      for (const auto& point : window) min = std::min(min, point.second);
      return min;
    }
    case ReduceFunction::kMax: {
      double max = window.front().second;
      for (const auto& point : window) max = std::max(max, point.second);
      return max;
    }
    case ReduceFunction::kDelta:
      if (window.size() < 2) return std::nullopt;
      return window.back().second - window.front().second;
    case ReduceFunction::kRate: {
      if (window.size() < 2) return std::nullopt;
      const double seconds =
          std::chrono::duration<double>(window.back().first - window.front().first).count();
      if (seconds <= 0) return std::nullopt;
      // A counter that goes down was reset (reboot, driver reload): count from zero, as
      // Prometheus' rate() does.
      double increase = 0;
      for (std::size_t i = 1; i < window.size(); ++i) {
        const double previous = window[i - 1].second;
        const double current = window[i].second;
        increase += current >= previous ? current - previous : current;
      }
      return increase / seconds;
    }
  }
  return value;
}

void Evaluator::Activate(const Rule& rule, Instance& instance, SteadyTime now, WallTime wall_now,
                         bool by_missing_data, std::vector<AlertTransition>& out) const {
  instance.state = AlertState::kPending;
  instance.active_since = now;
  instance.active_since_wall = wall_now;
  instance.clearing_since.reset();
  if (rule.for_duration.count() == 0) {
    instance.state = AlertState::kFiring;
    instance.firing_since = wall_now;
    out.push_back(MakeTransition(rule, instance, AlertState::kFiring, wall_now,
                                 by_missing_data ? "no_data" : "threshold"));
  }
}

void Evaluator::Clear(const Rule& rule, Instance& instance, SteadyTime now, WallTime wall_now,
                      std::string_view reason, std::vector<AlertTransition>& out) const {
  if (instance.state == AlertState::kPending) {
    instance.state = AlertState::kInactive;
    instance.firing_since.reset();
    instance.clearing_since.reset();
    return;
  }
  if (instance.state != AlertState::kFiring) return;
  if (!instance.clearing_since) instance.clearing_since = now;
  if (now - *instance.clearing_since < rule.keep_firing_for) return;
  out.push_back(MakeTransition(rule, instance, AlertState::kResolved, wall_now, reason));
  instance.state = AlertState::kInactive;
  instance.firing_since.reset();
  instance.clearing_since.reset();
}

void Evaluator::Step(const Rule& rule, Instance& instance, std::optional<double> value,
                     SteadyTime now, WallTime wall_now, std::vector<AlertTransition>& out) const {
  // Whether the condition holds this tick: true (active), false (cleared), or, with missing data
  // under the keep policy, unknown (nullopt: nothing changes, but for the timeout).
  std::optional<bool> active;
  bool by_missing_data = false;
  if (value) {
    instance.missing_since.reset();
    instance.missing_since_wall.reset();
    active =
        instance.state == AlertState::kInactive ? rule.Triggered(*value) : rule.StillActive(*value);
  } else {
    if (!instance.missing_since) {
      instance.missing_since = now;
      instance.missing_since_wall = wall_now;
    }
    by_missing_data = true;
    switch (rule.no_data) {
      case NoDataPolicy::kKeep:
        if (instance.state != AlertState::kInactive &&
            now - *instance.missing_since >= rule.no_data_timeout) {
          // The data has been gone for too long to keep claiming anything: resolve at once (the
          // timeout already was the delay).
          if (instance.state == AlertState::kFiring) {
            out.push_back(
                MakeTransition(rule, instance, AlertState::kResolved, wall_now, "no_data"));
          }
          instance.state = AlertState::kInactive;
          instance.firing_since.reset();
          instance.clearing_since.reset();
        }
        return;
      case NoDataPolicy::kFire:
        active = true;
        break;
      case NoDataPolicy::kResolve:
        active = false;
        break;
    }
  }
  Advance(rule, instance, *active, by_missing_data, now, wall_now, out);
}

void Evaluator::Advance(const Rule& rule, Instance& instance, bool active, bool by_missing_data,
                        SteadyTime now, WallTime wall_now,
                        std::vector<AlertTransition>& out) const {
  switch (instance.state) {
    case AlertState::kInactive:
      if (active) Activate(rule, instance, now, wall_now, by_missing_data, out);
      break;
    case AlertState::kPending:
      if (!active) {
        Clear(rule, instance, now, wall_now, by_missing_data ? "no_data" : "cleared", out);
      } else if (now - instance.active_since >= rule.for_duration) {
        instance.state = AlertState::kFiring;
        instance.firing_since = wall_now;
        out.push_back(MakeTransition(rule, instance, AlertState::kFiring, wall_now,
                                     by_missing_data ? "no_data" : "threshold"));
      }
      break;
    case AlertState::kFiring:
      if (active) {
        instance.clearing_since.reset();
      } else {
        Clear(rule, instance, now, wall_now, by_missing_data ? "no_data" : "cleared", out);
      }
      break;
    case AlertState::kResolved:
      break;  // Never stored: a resolved alert is inactive.
  }
}

void Evaluator::EvaluateRule(const Rule& rule, RuleState& state,
                             const std::vector<const Sample*>& samples, SteadyTime now,
                             WallTime wall_now, std::vector<AlertTransition>& out) const {
  for (auto& [key, instance] : state.instances) instance.seen = false;
  for (const Sample* sample : samples) {
    if (!rule.selector.Matches(sample->desc->name, sample->labels)) continue;
    const std::string key = SeriesKey(*sample);
    auto [it, inserted] = state.instances.try_emplace(key);
    Instance& instance = it->second;
    if (inserted) instance.series_labels = sample->labels;
    if (instance.seen) continue;  // The same series twice in one collection: the first counts.
    instance.seen = true;
    std::optional<double> value = sample->value;
    if (value && std::isnan(*value)) value.reset();
    if (!value) {
      instance.value.reset();
      Step(rule, instance, std::nullopt, now, wall_now, out);
      continue;
    }
    const std::optional<double> reduced = Reduced(rule, instance, now, *value);
    if (!reduced) {
      // A rate or delta needs two values: data is here, but there is nothing to compare yet.
      instance.missing_since.reset();
      instance.missing_since_wall.reset();
      continue;
    }
    instance.value = reduced;
    Step(rule, instance, reduced, now, wall_now, out);
  }
  for (auto it = state.instances.begin(); it != state.instances.end();) {
    Instance& instance = it->second;
    if (!instance.seen) {
      instance.value.reset();
      Step(rule, instance, std::nullopt, now, wall_now, out);
    }
    // An inactive alert is forgotten once nothing about it needs remembering: its reduce window
    // is empty or stale, and the rule does not fire on the series going away.
    const bool window_stale =
        instance.window.empty() || instance.window.back().first < now - rule.reduce.window;
    const bool forget =
        instance.state == AlertState::kInactive && rule.no_data != NoDataPolicy::kFire &&
        (rule.reduce.function == ReduceFunction::kLast || (!instance.seen && window_stale));
    it = forget ? state.instances.erase(it) : std::next(it);
  }
}

std::vector<AlertTransition> Evaluator::Evaluate(const std::vector<Sample>& samples, SteadyTime now,
                                                 WallTime wall_now) {
  std::vector<AlertTransition> out;
  if (rules_.empty()) return out;
  for (const Sample& sample : samples) {
    if (sample.desc == nullptr) continue;
    auto [it, inserted] = rules_by_desc_.try_emplace(sample.desc);
    if (inserted) {
      for (std::size_t i = 0; i < rules_.size(); ++i) {
        if (rules_[i].enabled && rules_[i].kind == RuleKind::kThreshold &&
            rules_[i].selector.name == sample.desc->name) {
          it->second.push_back(i);
        }
      }
    }
    for (const std::size_t i : it->second) selected_[i].push_back(&sample);
  }
  for (std::size_t i = 0; i < rules_.size(); ++i) {
    const Rule& rule = rules_[i];
    if (!rule.enabled || rule.kind != RuleKind::kThreshold) continue;
    EvaluateRule(rule, states_[i], selected_[i], now, wall_now, out);
  }
  for (std::vector<const Sample*>& selected : selected_) selected.clear();
  return out;
}

std::vector<AlertTransition> Evaluator::SetRules(std::vector<Rule> rules, WallTime wall_now) {
  std::vector<AlertTransition> out;
  std::vector<RuleState> states(rules.size());
  std::vector<bool> carried(rules_.size(), false);
  for (std::size_t i = 0; i < rules.size(); ++i) {
    const Rule& rule = rules[i];
    if (!rule.enabled) continue;
    const auto old = std::find_if(rules_.begin(), rules_.end(),
                                  [&](const Rule& r) { return r.name == rule.name && r.enabled; });
    if (old == rules_.end()) continue;
    const std::size_t j = static_cast<std::size_t>(old - rules_.begin());
    carried[j] = true;
    const bool same_reduce =
        old->reduce.function == rule.reduce.function && old->reduce.window == rule.reduce.window;
    for (auto& [key, instance] : states_[j].instances) {
      if (!rule.selector.Matches(old->selector.name, instance.series_labels) ||
          rule.selector.name != old->selector.name) {
        if (instance.state == AlertState::kFiring) {
          out.push_back(
              MakeTransition(*old, instance, AlertState::kResolved, wall_now, "rule_changed"));
        }
        continue;
      }
      if (!same_reduce) instance.window.clear();
      states[i].instances.emplace(key, std::move(instance));
    }
  }
  for (std::size_t j = 0; j < rules_.size(); ++j) {
    if (carried[j]) continue;
    for (const auto& [key, instance] : states_[j].instances) {
      if (instance.state == AlertState::kFiring) {
        out.push_back(
            MakeTransition(rules_[j], instance, AlertState::kResolved, wall_now, "rule_removed"));
      }
    }
  }
  AdoptRules(std::move(rules));
  states_ = std::move(states);
  return out;
}

std::vector<AlertTransition> Evaluator::Restore(const std::vector<AlertTransition>& firing,
                                                SteadyTime now, WallTime wall_now) {
  std::vector<AlertTransition> out;
  for (const AlertTransition& transition : firing) {
    const auto rule = std::find_if(rules_.begin(), rules_.end(), [&](const Rule& r) {
      return r.name == transition.rule && r.enabled;
    });
    if (rule == rules_.end() || !rule->selector.Matches(rule->selector.name, transition.labels)) {
      AlertTransition resolved = transition;
      resolved.state = AlertState::kResolved;
      resolved.at = wall_now;
      resolved.reason = rule == rules_.end() ? "rule_removed" : "rule_changed";
      out.push_back(std::move(resolved));
      continue;
    }
    RuleState& state = states_[static_cast<std::size_t>(rule - rules_.begin())];
    Instance& instance = state.instances[SeriesKey(rule->selector.name, transition.labels)];
    instance.series_labels = transition.labels;
    instance.state = AlertState::kFiring;
    instance.active_since_wall = transition.active_since;
    const auto age = std::max<WallTime::duration>(wall_now - transition.active_since,
                                                  WallTime::duration::zero());
    instance.active_since = now - std::chrono::duration_cast<SteadyTime::duration>(age);
    instance.firing_since = transition.at;
    instance.value = transition.value;
    if (rule->kind == RuleKind::kEvent) {
      instance.judged = Judged{transition.op, transition.threshold, transition.annotations};
    }
  }
  return out;
}

std::vector<AlertTransition> Evaluator::Judge(const std::vector<Judgement>& judgements,
                                              SteadyTime now, WallTime wall_now) {
  std::vector<AlertTransition> out;
  for (const Judgement& judgement : judgements) {
    const auto rule = std::find_if(rules_.begin(), rules_.end(), [&](const Rule& r) {
      return r.name == judgement.rule && r.enabled && r.kind == RuleKind::kEvent;
    });
    if (rule == rules_.end()) continue;
    auto& instances = states_[static_cast<std::size_t>(rule - rules_.begin())].instances;
    const std::string key = SeriesKey("", judgement.labels);
    const auto existing = instances.find(key);
    // A cleared judgement of an alert that is not active has nothing to change.
    if (!judgement.condition && existing == instances.end()) continue;
    Instance& instance = existing != instances.end() ? existing->second : instances[key];
    instance.series_labels = judgement.labels;
    instance.value = judgement.value;
    instance.judged = Judged{judgement.op, judgement.threshold, judgement.annotations};
    Advance(*rule, instance, judgement.condition, /*by_missing_data=*/false, now, wall_now, out);
    if (instance.state == AlertState::kInactive) instances.erase(key);
  }
  return out;
}

std::vector<AlertTransition> Evaluator::RetainEvents(const std::function<bool(const Labels&)>& keep,
                                                     WallTime wall_now) {
  std::vector<AlertTransition> out;
  for (std::size_t i = 0; i < rules_.size(); ++i) {
    if (rules_[i].kind != RuleKind::kEvent) continue;
    auto& instances = states_[i].instances;
    for (auto it = instances.begin(); it != instances.end();) {
      if (keep(it->second.series_labels)) {
        ++it;
        continue;
      }
      if (it->second.state == AlertState::kFiring) {
        out.push_back(
            MakeTransition(rules_[i], it->second, AlertState::kResolved, wall_now, "rule_removed"));
      }
      it = instances.erase(it);
    }
  }
  return out;
}

std::vector<ActiveAlert> Evaluator::Active() const {
  std::vector<std::pair<std::string, ActiveAlert>> keyed;
  for (std::size_t i = 0; i < rules_.size(); ++i) {
    const Rule& rule = rules_[i];
    for (const auto& [key, instance] : states_[i].instances) {
      if (instance.state != AlertState::kPending && instance.state != AlertState::kFiring) {
        continue;
      }
      ActiveAlert alert;
      alert.rule = rule.name;
      alert.state = instance.state;
      alert.severity = rule.severity;
      alert.labels = instance.series_labels;
      alert.rule_labels = rule.labels;
      alert.value = instance.value;
      if (instance.judged) {
        alert.op = instance.judged->op;
        alert.threshold = alert.clear_threshold = instance.judged->threshold;
      } else {
        alert.op = std::string(ComparisonSymbol(rule.op));
        alert.threshold = rule.trigger;
        alert.clear_threshold = rule.clear;
      }
      alert.active_since = instance.active_since_wall;
      alert.firing_since = instance.firing_since;
      alert.missing_since = instance.missing_since_wall;
      alert.annotations = Annotations(rule, instance);
      keyed.emplace_back(rule.name + "\n" + key, std::move(alert));
    }
  }
  std::sort(keyed.begin(), keyed.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<ActiveAlert> out;
  out.reserve(keyed.size());
  for (auto& [key, alert] : keyed) out.push_back(std::move(alert));
  return out;
}

std::vector<Sample> Evaluator::Metrics(WallTime now) const {
  std::vector<Sample> out;
  for (std::size_t i = 0; i < rules_.size(); ++i) {
    const Rule& rule = rules_[i];
    if (!rule.enabled) continue;
    double firing = 0;
    for (const auto& [key, instance] : states_[i].instances) {
      if (instance.state == AlertState::kFiring) firing += 1;
    }
    out.push_back(
        Sample{&kFiring,
               {{"alert", rule.name}, {"severity", std::string(AlertSeverityName(rule.severity))}},
               firing,
               "",
               now});
  }
  return out;
}

}  // namespace edgemond::alerts
