// The collectors edgemond ships, and their configuration.
//
// The list lives in one table in builtin_collectors.cc, one row per collector, in the order they
// run: its name, its help text, whether it reads power, how it is made and what it reports. The
// configuration schema, --help, edgemond.json and the self-benchmarks' power sampler all read that
// table. Adding a collector is: its two files (foo_collector.{h,cc}), one row in that table, a row
// per metric in docs/metrics.md, and fixture files for the boards that have the hardware.
//
// The daemon maps the config file section
//   "collectors": {"cpu": true, "hwmon": false, ..., "nvml_library": "libnvidia-ml.so.1"}
// onto CollectorsConfig (one `enabled` per collector name, and nvml_library) and rejects names
// BuiltinCollectorNames() does not list.

#ifndef EDGEMOND_COLLECTORS_BUILTIN_COLLECTORS_H_
#define EDGEMOND_COLLECTORS_BUILTIN_COLLECTORS_H_

#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "collectors/collector.h"
#include "collectors/collector_runner.h"
#include "core/clock.h"

namespace edgemond::collectors {

struct CollectorOptions {
  bool enabled = true;
};

struct CollectorsConfig {
  static constexpr std::string_view kDefaultNvmlLibrary = "libnvidia-ml.so.1";

  // Options by collector name. A collector without an entry runs with the defaults (enabled).
  std::map<std::string, CollectorOptions, std::less<>> collectors;

  // What the nvidia_gpu collector passes to dlopen(): a library name searched the usual way, or a
  // path. The test suite points it at a fake NVML with the same ABI.
  std::string nvml_library = std::string(kDefaultNvmlLibrary);

  // How long one collector's collection may take before the runner reports it as timed out and
  // skips it until that collection returns (a sensor read that hangs).
  double timeout_seconds = 0.5;

  const CollectorOptions& OptionsFor(std::string_view name) const;
};

// What the rest of edgemond knows of a built-in collector.
struct CollectorInfo {
  std::string_view name;  // Also its key in the "collectors" config section.
  std::string_view help;  // One or two sentences: the comment in edgemond.json.
  // Whether it reads power or energy: the self-benchmarks sample these at a high rate during a
  // run, for its energy figures.
  bool reads_power = false;
};

// Every built-in collector, in the order they run.
std::span<const CollectorInfo> BuiltinCollectors();

// Every built-in collector's name, in the order they run: "cpu", "memory", "thermal", "hwmon",
// "power_rail", "rapl", "fan", "jetson_gpu", "amd_gpu", "nvidia_gpu", "emc", "power_mode",
// "throttle".
std::vector<std::string_view> BuiltinCollectorNames();

// kInvalidArgument naming the first entry of `config` that is not a built-in collector.
Status ValidateCollectorsConfig(const CollectorsConfig& config);

// The enabled built-in collectors, in run order. `fs` and `clock` (the steady clock rates are
// computed on) are borrowed by the collectors and must outlive them. Construction does no I/O and
// cannot fail: collectors discover their hardware on the first Collect(), and one whose hardware is
// absent returns kNotFound from Collect() (cheaply: it looks again only every 60 ticks).
std::vector<std::unique_ptr<Collector>> MakeBuiltinCollectors(const RootedFs& fs,
                                                              const CollectorsConfig& config,
                                                              const Clock& clock);

// The same collectors in a CollectorRunner, reading the files that several of them poll (the
// INA3221's inputs, cpufreq and GPU frequency limits, a thermal zone) once per tick: the runner
// owns the shared files (collectors/internal/tick_files.h), and gives up on a collection after
// config.timeout_seconds. What the daemon runs.
std::unique_ptr<CollectorRunner> MakeBuiltinRunner(const RootedFs& fs,
                                                   const CollectorsConfig& config,
                                                   const Clock& clock);

// Every metric the built-in collectors and the CollectorRunner can produce, each once, in a stable
// order (runner self-metrics first, then collector by collector), whether enabled or not: for
// /metrics HELP/TYPE lines and for docs/metrics.md.
std::vector<const MetricDesc*> AllMetricDescs();

}  // namespace edgemond::collectors

#endif  // EDGEMOND_COLLECTORS_BUILTIN_COLLECTORS_H_
