#include "collectors/builtin_collectors.h"

#include <algorithm>

#include "collectors/amd_gpu_collector.h"
#include "collectors/collector_runner.h"
#include "collectors/cpu_collector.h"
#include "collectors/emc_collector.h"
#include "collectors/fan_collector.h"
#include "collectors/hwmon_collector.h"
#include "collectors/internal/tick_files.h"
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
  internal::TickFiles* files;  // Files the collectors share; null: each reads its own.
};

template <typename T>
std::unique_ptr<Collector> Make(const Context& context) {
  return std::make_unique<T>(context.fs);
}

// A collector that polls files another collector polls too.
template <typename T>
std::unique_ptr<Collector> MakeSharing(const Context& context) {
  return std::make_unique<T>(context.fs, context.files);
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
    {"cpu", &MakeSharing<CpuCollector>, &CpuCollector::Metrics},
    {"memory", &Make<MemoryCollector>, &MemoryCollector::Metrics},
    {"thermal", &MakeSharing<ThermalCollector>, &ThermalCollector::Metrics},
    {"hwmon", &MakeSharing<HwmonCollector>, &HwmonCollector::Metrics},
    {"power_rail", &MakeSharing<PowerRailCollector>, &PowerRailCollector::Metrics},
    {"rapl", &MakeRapl, &RaplCollector::Metrics},
    {"fan", &MakeSharing<FanCollector>, &FanCollector::Metrics},
    {"jetson_gpu", &MakeSharing<JetsonGpuCollector>, &JetsonGpuCollector::Metrics},
    {"amd_gpu", &Make<AmdGpuCollector>, &AmdGpuCollector::Metrics},
    {"nvidia_gpu", &MakeNvidiaGpu, &NvidiaGpuCollector::Metrics},
    {"emc", &Make<EmcCollector>, &EmcCollector::Metrics},
    {"power_mode", &MakeSharing<PowerModeCollector>, &PowerModeCollector::Metrics},
    {"throttle", &MakeSharing<ThrottleCollector>, &ThrottleCollector::Metrics},
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
  for (const auto& entry : config.collectors) {
    const std::string& name = entry.first;
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

namespace {

std::vector<std::unique_ptr<Collector>> MakeCollectors(const Context& context) {
  std::vector<std::unique_ptr<Collector>> collectors;
  for (const BuiltinCollector& builtin : kBuiltins) {
    if (context.config.OptionsFor(builtin.name).enabled) {
      collectors.push_back(builtin.make(context));
    }
  }
  return collectors;
}

}  // namespace

std::vector<std::unique_ptr<Collector>> MakeBuiltinCollectors(const RootedFs& fs,
                                                              const CollectorsConfig& config,
                                                              const Clock& clock) {
  return MakeCollectors(Context{fs, config, clock, nullptr});
}

std::unique_ptr<CollectorRunner> MakeBuiltinRunner(const RootedFs& fs,
                                                   const CollectorsConfig& config,
                                                   const Clock& clock) {
  auto files = std::make_unique<internal::TickFiles>(fs);
  std::vector<std::unique_ptr<Collector>> collectors =
      MakeCollectors(Context{fs, config, clock, files.get()});
  return std::make_unique<CollectorRunner>(std::move(files), std::move(collectors), clock);
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
