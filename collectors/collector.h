// Collector: reads one family of device state (CPU, memory, thermal zones, ...) once per tick.
//
// This is the only header other parts include from collectors/. Collectors are built once,
// then CollectInto() is called at every tick, from one thread at a time (the runner's worker,
// internal/collector_threads.h). A collector keeps whatever state it needs between ticks
// (previous /proc/stat counters, open fds).
//
// Failure model, after node_exporter: one collector failing never fails the others.
//  - A sensor that cannot be read is a Sample without a value and with the reason.
//  - CollectInto() returns kNotFound when the hardware is absent altogether (no thermal zones on
//    this machine); the runner exports edgemond_collector_success{collector} 0 and logs at debug.
//  - Any other error means the collector could not work at all this tick.
//
// A collection appends to the tick's vector rather than returning a vector of its own, so that a
// tick allocates one sample vector, not one per collector (docs/performance.md).

#ifndef EDGEMOND_COLLECTORS_COLLECTOR_H_
#define EDGEMOND_COLLECTORS_COLLECTOR_H_

#include <memory>
#include <string_view>
#include <vector>

#include "core/clock.h"
#include "core/result.h"
#include "core/rooted_fs.h"
#include "core/sample.h"
#include "core/status.h"

namespace edgemond::collectors {

class Collector {
 public:
  virtual ~Collector() = default;

  // Stable lower-case name: "cpu", "memory", "thermal", "hwmon". Used as a label and config key.
  virtual std::string_view name() const = 0;

  // Every metric this collector may produce, for /metrics HELP/TYPE and docs/metrics.md.
  virtual std::vector<const MetricDesc*> Describe() const = 0;

  // Reads the device once and appends what it produced to `out`, which may already hold other
  // collectors' samples: a collector only appends, and never reads or changes what was there.
  // `now` stamps every produced sample. On an error, the caller drops whatever was appended.
  virtual Status CollectInto(WallTime now, std::vector<Sample>& out) = 0;

  // One collection into a vector of its own (tests, tools); the daemon's runner uses CollectInto.
  Result<std::vector<Sample>> Collect(WallTime now) {
    std::vector<Sample> out;
    EDGEMOND_RETURN_IF_ERROR(CollectInto(now, out));
    return out;
  }
};

}  // namespace edgemond::collectors

#endif  // EDGEMOND_COLLECTORS_COLLECTOR_H_
