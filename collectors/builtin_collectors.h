// The collectors edgemond ships, and their configuration.
//
// The list lives in one table in builtin_collectors.cc, one line per collector, in the order they
// run. Adding a collector is: its two files (foo_collector.{h,cc}), one line in that table, a row
// per metric in docs/metrics.md, and fixture files for the boards that have the hardware.
//
// The daemon maps the config file section
//   "collectors": {"cpu": {"enabled": true}, "hwmon": {"enabled": false}}
// onto CollectorsConfig and rejects names BuiltinCollectorNames() does not list.

#ifndef EDGEMOND_COLLECTORS_BUILTIN_COLLECTORS_H_
#define EDGEMOND_COLLECTORS_BUILTIN_COLLECTORS_H_

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "collectors/collector.h"

namespace edgemond::collectors {

struct CollectorOptions {
  bool enabled = true;
};

struct CollectorsConfig {
  // Options by collector name. A collector without an entry runs with the defaults (enabled).
  std::map<std::string, CollectorOptions, std::less<>> collectors;

  const CollectorOptions& OptionsFor(std::string_view name) const;
};

// Every built-in collector's name, in the order they run: "cpu", "memory", "thermal", "hwmon".
std::vector<std::string_view> BuiltinCollectorNames();

// kInvalidArgument naming the first entry of `config` that is not a built-in collector.
Status ValidateCollectorsConfig(const CollectorsConfig& config);

// The enabled built-in collectors, in run order. `fs` is borrowed by every collector and must
// outlive them. Construction does no I/O and cannot fail: collectors discover their hardware on
// the first Collect().
std::vector<std::unique_ptr<Collector>> MakeBuiltinCollectors(const RootedFs& fs,
                                                              const CollectorsConfig& config);

// Every metric the built-in collectors and the CollectorRunner can produce, each once, in a stable
// order (runner self-metrics first, then collector by collector), whether enabled or not: for
// /metrics HELP/TYPE lines and for docs/metrics.md.
std::vector<const MetricDesc*> AllMetricDescs();

}  // namespace edgemond::collectors

#endif  // EDGEMOND_COLLECTORS_BUILTIN_COLLECTORS_H_
