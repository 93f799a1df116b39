// Collector: reads one family of device state (CPU, memory, thermal zones, ...) once per tick.
//
// This is the only header other parts include from collectors/. Collectors are built once,
// then Collect() is called from a single thread (the daemon's loop) at every tick. A collector
// keeps whatever state it needs between ticks (previous /proc/stat counters, open fds).
//
// Failure model, after node_exporter: one collector failing never fails the others.
//  - A sensor that cannot be read is a Sample without a value and with the reason.
//  - Collect() returns kNotFound when the hardware is absent altogether (no thermal zones on
//    this machine); the runner exports edgemond_collector_success{collector} 0 and logs at debug.
//  - Any other error means the collector could not work at all this tick.

#ifndef EDGEMOND_COLLECTORS_COLLECTOR_H_
#define EDGEMOND_COLLECTORS_COLLECTOR_H_

#include <memory>
#include <string_view>
#include <vector>

#include "core/clock.h"
#include "core/result.h"
#include "core/rooted_fs.h"
#include "core/sample.h"

namespace edgemond::collectors {

class Collector {
 public:
  virtual ~Collector() = default;

  // Stable lower-case name: "cpu", "memory", "thermal", "hwmon". Used as a label and config key.
  virtual std::string_view name() const = 0;

  // Every metric this collector may produce, for /metrics HELP/TYPE and docs/metrics.md.
  virtual std::vector<const MetricDesc*> Describe() const = 0;

  // Reads the device once. `now` stamps every produced sample.
  virtual Result<std::vector<Sample>> Collect(WallTime now) = 0;
};

}  // namespace edgemond::collectors

#endif  // EDGEMOND_COLLECTORS_COLLECTOR_H_
