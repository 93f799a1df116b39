#include "collectors/builtin_collectors.h"

#include <algorithm>

#include "collectors/amd_gpu_collector.h"
#include "collectors/collector_runner.h"
#include "collectors/cpu_collector.h"
#include "collectors/emc_collector.h"
#include "collectors/fan_collector.h"
#include "collectors/hwmon_collector.h"
#include "collectors/jetson_gpu_collector.h"
#include "collectors/memory_collector.h"
#include "collectors/nvidia_gpu_collector.h"
#include "collectors/power_mode_collector.h"
#include "collectors/power_rail_collector.h"
#include "collectors/rapl_collector.h"
#include "collectors/thermal_collector.h"
#include "collectors/throttle_collector.h"

namespace edgemond::collectors {
namespace {

// What a collector may need to be built.
struct Context {
  const RootedFs& fs;
  const CollectorsConfig& config;
  const Clock& clock;
};

template <typename T>
std::unique_ptr<Collector> Make(const Context& context) {
  return std::make_unique<T>(context.fs);
}

std::unique_ptr<Collector> MakeRapl(const Context& context) {
  return std::make_unique<RaplCollector>(context.fs, context.clock);
}

std::unique_ptr<Collector> MakeNvidiaGpu(const Context& context) {
  return std::make_unique<NvidiaGpuCollector>(context.config.nvml_library);
}

struct BuiltinCollector {
  std::string_view name;  // Must equal the collector's name().
  std::unique_ptr<Collector> (*make)(const Context& context);
  std::vector<const MetricDesc*> (*metrics)();
};

// The built-in collectors, in run order. One line each.
constexpr BuiltinCollector kBuiltins[] = {
    {"cpu", &Make<CpuCollector>, &CpuCollector::Metrics},
    {"memory", &Make<MemoryCollector>, &MemoryCollector::Metrics},
    {"thermal", &Make<ThermalCollector>, &ThermalCollector::Metrics},
    {"hwmon", &Make<HwmonCollector>, &HwmonCollector::Metrics},
    {"power_rail", &Make<PowerRailCollector>, &PowerRailCollector::Metrics},
    {"rapl", &MakeRapl, &RaplCollector::Metrics},
    {"fan", &Make<FanCollector>, &FanCollector::Metrics},
    {"jetson_gpu", &Make<JetsonGpuCollector>, &JetsonGpuCollector::Metrics},
    {"amd_gpu", &Make<AmdGpuCollector>, &AmdGpuCollector::Metrics},
    {"nvidia_gpu", &MakeNvidiaGpu, &NvidiaGpuCollector::Metrics},
    {"emc", &Make<EmcCollector>, &EmcCollector::Metrics},
    {"power_mode", &Make<PowerModeCollector>, &PowerModeCollector::Metrics},
    {"throttle", &Make<ThrottleCollector>, &ThrottleCollector::Metrics},
};

}  // namespace

const CollectorOptions& CollectorsConfig::OptionsFor(std::string_view name) const {
  static constexpr CollectorOptions kDefaults;
  const auto it = collectors.find(name);
  return it == collectors.end() ? kDefaults : it->second;
}

std::vector<std::string_view> BuiltinCollectorNames() {
  std::vector<std::string_view> names;
  for (const BuiltinCollector& builtin : kBuiltins) names.push_back(builtin.name);
  return names;
}

Status ValidateCollectorsConfig(const CollectorsConfig& config) {
  for (const auto& [name, options] : config.collectors) {
    const bool known = std::any_of(std::begin(kBuiltins), std::end(kBuiltins),
                                   [&](const BuiltinCollector& b) { return b.name == name; });
    if (!known) {
      std::string message = "unknown collector \"" + name + "\" (known:";
      for (const BuiltinCollector& builtin : kBuiltins) {
        message += " ";
        message += builtin.name;
      }
      message += ")";
      return Status::InvalidArgument(message);
    }
  }
  return Status::Ok();
}

std::vector<std::unique_ptr<Collector>> MakeBuiltinCollectors(const RootedFs& fs,
                                                              const CollectorsConfig& config,
                                                              const Clock& clock) {
  const Context context{fs, config, clock};
  std::vector<std::unique_ptr<Collector>> collectors;
  for (const BuiltinCollector& builtin : kBuiltins) {
    if (config.OptionsFor(builtin.name).enabled) collectors.push_back(builtin.make(context));
  }
  return collectors;
}

std::vector<const MetricDesc*> AllMetricDescs() {
  std::vector<const MetricDesc*> descs = CollectorRunner::Metrics();
  for (const BuiltinCollector& builtin : kBuiltins) {
    for (const MetricDesc* desc : builtin.metrics()) {
      if (std::find(descs.begin(), descs.end(), desc) == descs.end()) descs.push_back(desc);
    }
  }
  return descs;
}

}  // namespace edgemond::collectors
