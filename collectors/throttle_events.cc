#include "collectors/throttle_events.h"

#include "collectors/internal/throttle.h"

namespace edgemond::collectors {

std::string_view ThrottleEventKindName(ThrottleEvent::Kind kind) {
  return kind == ThrottleEvent::Kind::kStarted ? "started" : "ended";
}

std::string_view ThrottleEventTracker::MetricName() { return internal::kThrottled.name; }

std::vector<ThrottleEvent> ThrottleEventTracker::Update(const std::vector<Sample>& samples) {
  std::vector<ThrottleEvent> events;
  for (const Sample& sample : samples) {
    if (sample.desc == nullptr || sample.desc->name != internal::kThrottled.name || !sample.value) {
      continue;
    }
    const bool now_active = *sample.value != 0;
    auto key = std::make_pair(std::string(LabelValue(sample.labels, "component")),
                              std::string(LabelValue(sample.labels, "reason")));
    const auto it = active_.find(key);
    const bool was_active = it != active_.end() && it->second;
    if (now_active != was_active && (it != active_.end() || now_active)) {
      events.push_back(
          ThrottleEvent{now_active ? ThrottleEvent::Kind::kStarted : ThrottleEvent::Kind::kEnded,
                        key.first, key.second, sample.at});
    }
    active_.insert_or_assign(std::move(key), now_active);
  }
  for (const ThrottleEvent& event : events) {
    history_.push_back(event);
    if (history_.size() > capacity_) history_.pop_front();
  }
  return events;
}

}  // namespace edgemond::collectors
