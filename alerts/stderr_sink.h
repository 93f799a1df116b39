// StderrSink: alert transitions as readable lines on a file descriptor (stderr), for when there is
// no journal: "2026-11-22 02:10:00.000 alert thermal_zone_hot{...} FIRING (warning): ...".
// The timestamp has the layout of the daemon's log lines, so both read as one log.
//
// Thread safety: Emit() writes each line with one write(2), so lines never interleave with other
// writers of the same descriptor.

#ifndef EDGEMOND_ALERTS_STDERR_SINK_H_
#define EDGEMOND_ALERTS_STDERR_SINK_H_

#include <unistd.h>

#include "alerts/alert_sink.h"

namespace edgemond::alerts {

class StderrSink final : public AlertSink {
 public:
  // `fd` is borrowed (stderr by default) and must stay open while the sink is used.
  explicit StderrSink(int fd = STDERR_FILENO) : fd_(fd) {}
  Status Emit(const AlertTransition& transition) override;

 private:
  const int fd_;
};

}  // namespace edgemond::alerts

#endif  // EDGEMOND_ALERTS_STDERR_SINK_H_
