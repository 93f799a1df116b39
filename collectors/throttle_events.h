// ThrottleEventTracker: turns the edgemond_throttled{component,reason} series into events ("the
// CPU became frequency-capped at 12:03:04", "... stopped being capped at 12:05:10") for the API's
// event list and the journal.
//
// The daemon feeds it every tick's samples (the CollectorRunner's TickReport::samples, all
// collectors together) and gets back the transitions of that tick:
//   0 -> 1, or first seen at 1   kStarted (a throttle already active at startup is reported once,
//                                stamped with the first tick that saw it)
//   1 -> 0                       kEnded
// A missing value or a series absent this tick (its collector failed) changes nothing: not
// knowing is not a transition. Other metrics are ignored. The last `history_capacity` events are
// kept, oldest first, for GET requests that list recent events.
//
// Pure logic: no I/O, no clock (events carry the samples' timestamps).
// Thread safety: not thread-safe. The daemon calls Update() from its loop and copies History()
// under its own lock for the HTTP threads.

#ifndef EDGEMOND_COLLECTORS_THROTTLE_EVENTS_H_
#define EDGEMOND_COLLECTORS_THROTTLE_EVENTS_H_

#include <cstddef>
#include <deque>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/clock.h"
#include "core/sample.h"

namespace edgemond::collectors {

struct ThrottleEvent {
  enum class Kind { kStarted, kEnded };

  Kind kind;
  std::string component;  // "cpu", "board", "gpu:pci/0000:01:00.0"
  std::string reason;     // "frequency_cap", "thermal", "under_voltage", "hw_slowdown", ...
  WallTime at;            // The timestamp of the sample that showed the change.

  friend bool operator==(const ThrottleEvent&, const ThrottleEvent&) = default;
};

std::string_view ThrottleEventKindName(ThrottleEvent::Kind kind);  // "started" / "ended"

class ThrottleEventTracker {
 public:
  static constexpr std::size_t kDefaultHistoryCapacity = 256;

  explicit ThrottleEventTracker(std::size_t history_capacity = kDefaultHistoryCapacity)
      : capacity_(history_capacity) {}

  // The transitions shown by one tick's samples, in sample order; also appended to History().
  std::vector<ThrottleEvent> Update(const std::vector<Sample>& samples);

  // The most recent events, oldest first; at most `history_capacity`.
  const std::deque<ThrottleEvent>& History() const { return history_; }

  // The name of the metric this tracker follows.
  static std::string_view MetricName();

 private:
  const std::size_t capacity_;
  std::map<std::pair<std::string, std::string>, bool> active_;  // (component, reason) -> 1/0.
  std::deque<ThrottleEvent> history_;
};

}  // namespace edgemond::collectors

#endif  // EDGEMOND_COLLECTORS_THROTTLE_EVENTS_H_
