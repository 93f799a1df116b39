#include "collectors/builtin_collectors.h"

#include <algorithm>
#include <array>
#include <chrono>

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
  CollectorInfo info;  // info.name must equal the collector's name().
  std::unique_ptr<Collector> (*make)(const Context& context);
  std::vector<const MetricDesc*> (*metrics)();
};

// The built-in collectors, in run order: everything about a collector outside its own files.
// clang-format off
constexpr BuiltinCollector kBuiltins[] = {
    {{"cpu", "Per-core and total CPU utilization (/proc/stat) and frequency (cpufreq).", false},
     &MakeSharing<CpuCollector>, &CpuCollector::Metrics},
    {{"memory", "Memory and swap (/proc/meminfo).", false},
     &Make<MemoryCollector>, &MemoryCollector::Metrics},
    {{"thermal", "Thermal zones (/sys/class/thermal).", false},
     &MakeSharing<ThermalCollector>, &ThermalCollector::Metrics},
    {{"hwmon", "Hardware monitoring chips: temperatures, voltages, currents, power, energy, fans "
               "(/sys/class/hwmon).", true},
     &MakeSharing<HwmonCollector>, &HwmonCollector::Metrics},
    {{"power_rail", "Jetson power rails and the board's input power (INA3221: hwmon on JetPack "
                    "5/6, ina3221x IIO on JetPack 4).", true},
     &MakeSharing<PowerRailCollector>, &PowerRailCollector::Metrics},
    {{"rapl", "CPU package, core and DRAM energy and power (Intel/AMD RAPL, /sys/class/powercap; "
              "root only since Linux 5.10).", true},
     &MakeRapl, &RaplCollector::Metrics},
    {{"fan", "Jetson and Raspberry Pi fans: pwm-fan duty cycle and tachometer speed.", false},
     &MakeSharing<FanCollector>, &FanCollector::Metrics},
    {{"jetson_gpu", "A Jetson's integrated GPU: load, clocks, rail-gating, temperature (nvgpu, "
                    "devfreq).", false},
     &MakeSharing<JetsonGpuCollector>, &JetsonGpuCollector::Metrics},
    {{"amd_gpu", "AMD GPUs: busy share, VRAM, power, temperature, clocks (amdgpu, "
                 "/sys/class/drm).", true},
     &Make<AmdGpuCollector>, &AmdGpuCollector::Metrics},
    {{"nvidia_gpu", "NVIDIA GPUs through NVML, loaded at run time; absent library or driver: no "
                    "NVIDIA GPU.", true},
     &MakeNvidiaGpu, &NvidiaGpuCollector::Metrics},
    {{"emc", "A Jetson's memory controller clock and load (mostly debugfs: needs root).", false},
     &Make<EmcCollector>, &EmcCollector::Metrics},
    {{"power_mode", "A Jetson's nvpmodel power mode and whether jetson_clocks pinned the clocks "
                    "(files only, no subprocess).", false},
     &MakeSharing<PowerModeCollector>, &PowerModeCollector::Metrics},
    {{"throttle", "Why CPU clocks are held down: frequency caps, thermal cooling, Raspberry Pi "
                  "under-voltage.", false},
     &MakeSharing<ThrottleCollector>, &ThrottleCollector::Metrics},
};
// clang-format on

constexpr std::array<CollectorInfo, std::size(kBuiltins)> Infos() {
  std::array<CollectorInfo, std::size(kBuiltins)> infos{};
  for (std::size_t i = 0; i < infos.size(); ++i) infos[i] = kBuiltins[i].info;
  return infos;
}

constexpr std::array<CollectorInfo, std::size(kBuiltins)> kInfos = Infos();

}  // namespace

const CollectorOptions& CollectorsConfig::OptionsFor(std::string_view name) const {
  static constexpr CollectorOptions kDefaults;
  const auto it = collectors.find(name);
  return it == collectors.end() ? kDefaults : it->second;
}

std::span<const CollectorInfo> BuiltinCollectors() { return kInfos; }

std::vector<std::string_view> BuiltinCollectorNames() {
  std::vector<std::string_view> names;
  for (const CollectorInfo& info : kInfos) names.push_back(info.name);
  return names;
}

Status ValidateCollectorsConfig(const CollectorsConfig& config) {
  for (const auto& entry : config.collectors) {
    const std::string& name = entry.first;
    const bool known = std::any_of(std::begin(kBuiltins), std::end(kBuiltins),
                                   [&](const BuiltinCollector& b) { return b.info.name == name; });
    if (!known) {
      std::string message = "unknown collector \"" + name + "\" (known:";
      for (const BuiltinCollector& builtin : kBuiltins) {
        message += " ";
        message += builtin.info.name;
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
    if (context.config.OptionsFor(builtin.info.name).enabled) {
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
  const auto timeout = std::chrono::duration_cast<std::chrono::nanoseconds>(
      std::chrono::duration<double>(config.timeout_seconds));
  return std::make_unique<CollectorRunner>(std::move(files), std::move(collectors), clock, timeout);
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
