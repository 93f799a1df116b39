// RecordingSink: keeps every transition it is given, for tests that assert what an evaluator or
// the daemon emitted and how often.

#ifndef EDGEMOND_ALERTS_RECORDING_SINK_H_
#define EDGEMOND_ALERTS_RECORDING_SINK_H_

#include <vector>

#include "alerts/alert_sink.h"

namespace edgemond::alerts {

class RecordingSink final : public AlertSink {
 public:
  Status Emit(const AlertTransition& transition) override {
    transitions_.push_back(transition);
    return Status::Ok();
  }
  const std::vector<AlertTransition>& transitions() const { return transitions_; }
  void Clear() { transitions_.clear(); }

 private:
  std::vector<AlertTransition> transitions_;
};

}  // namespace edgemond::alerts

#endif  // EDGEMOND_ALERTS_RECORDING_SINK_H_
