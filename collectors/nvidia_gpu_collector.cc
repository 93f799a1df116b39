#include "collectors/nvidia_gpu_collector.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <iterator>
#include <utility>

#include "collectors/internal/gpu_metrics.h"
#include "collectors/internal/samples.h"
#include "collectors/internal/throttle.h"
#include "core/sample.h"

namespace edgemond::collectors {
namespace {

namespace nvml = internal::nvml;
using internal::MissingSample;
using internal::ValueSample;

constexpr double kPercent = 0.01;
constexpr double kMilli = 1e-3;
constexpr double kMega = 1e6;

struct ReasonBit {
  unsigned long long bit;
  std::string_view reason;
};
constexpr ReasonBit kReasons[] = {
    {nvml::kReasonSwPowerCap, "sw_power_cap"},
    {nvml::kReasonHwSlowdown, "hw_slowdown"},
    {nvml::kReasonSwThermalSlowdown, "sw_thermal_slowdown"},
    {nvml::kReasonHwThermalSlowdown, "hw_thermal_slowdown"},
    {nvml::kReasonHwPowerBrakeSlowdown, "hw_power_brake"},
    {nvml::kReasonSyncBoost, "sync_boost"},
    {nvml::kReasonApplicationsClocks, "applications_clocks"},
    {nvml::kReasonDisplayClocks, "display_clocks"},
};

// NVML's bus id "00000000:01:00.0" in the form sysfs uses, "0000:01:00.0": the same PCI device
// gets the same id from every collector.
std::string SysfsPciAddress(const nvml::PciInfo& pci) {
  char address[32];
  std::snprintf(address, sizeof(address), "%04x:%02x:%02x.0", pci.domain & 0xffff, pci.bus & 0xff,
                pci.device & 0xff);
  return address;
}

// The name from a fixed-size C buffer that NVML NUL-terminates (defensively bounded).
std::string CString(const char* buffer, std::size_t size) {
  return std::string(buffer, std::find(buffer, buffer + size, '\0'));
}

}  // namespace

NvidiaGpuCollector::NvidiaGpuCollector(std::string library, int rescan_every_ticks)
    : library_path_(std::move(library)), reload_(rescan_every_ticks) {}

NvidiaGpuCollector::~NvidiaGpuCollector() = default;

std::vector<const MetricDesc*> NvidiaGpuCollector::Metrics() {
  return {&internal::kGpuUtilization,     &internal::kGpuMemoryBusy,
          &internal::kGpuMemoryUsed,      &internal::kGpuMemoryTotal,
          &internal::kGpuPower,           &internal::kGpuPowerLimit,
          &internal::kGpuEnergy,          &internal::kGpuTemperature,
          &internal::kGpuFrequency,       &internal::kGpuFrequencyHardwareMax,
          &internal::kGpuMemoryFrequency, &internal::kThrottled};
}

void NvidiaGpuCollector::Unload() {
  devices_.clear();  // Their handles die with the library.
  library_.reset();
}

Status NvidiaGpuCollector::Load() {
  if (!library_) {
    auto library = internal::NvmlLibrary::Load(library_path_);
    if (!library.ok()) return library.status();
    library_ = std::move(*library);
  }
  const internal::NvmlLibrary::Functions& f = library_->functions();
  unsigned int count = 0;
  if (const nvml::Return ret = f.get_count(&count); ret != nvml::kSuccess) {
    return Status::Unavailable("nvmlDeviceGetCount_v2 failed with " + nvml::ErrorName(ret));
  }
  std::vector<Device> devices;
  for (unsigned int index = 0; index < count; ++index) {
    nvml::Device handle = nullptr;
    if (f.get_handle_by_index(index, &handle) != nvml::kSuccess) continue;
    char name_buffer[nvml::kNameBufferSize] = {};
    std::string name;
    if (f.get_name != nullptr &&
        f.get_name(handle, name_buffer, sizeof(name_buffer)) == nvml::kSuccess) {
      name = SanitizeUtf8(CString(name_buffer, sizeof(name_buffer)));
    }
    // JetPack's NVML lists the integrated GPU as "<SoC> (nvgpu)"; jetson_gpu reads it from sysfs.
    if (name.find("(nvgpu)") != std::string::npos) continue;
    std::string id = "nvml/" + std::to_string(index);
    nvml::PciInfo pci{};
    if (f.get_pci_info != nullptr && f.get_pci_info(handle, &pci) == nvml::kSuccess) {
      id = "pci/" + SysfsPciAddress(pci);
    }
    const auto old =
        std::find_if(devices_.begin(), devices_.end(), [&](const Device& d) { return d.id == id; });
    Device device{.handle = handle,
                  .id = id,
                  .labels = Labels{{"gpu", id}},
                  .utilization_labels = Labels{{"gpu", id}, {"name", name}},
                  .component = internal::GpuComponent(id),
                  .reason_labels = {},
                  .unsupported = old != devices_.end() ? old->unsupported : 0u};
    for (const ReasonBit& reason : kReasons) {
      device.reason_labels.push_back(internal::ThrottleLabels(device.component, reason.reason));
    }
    devices.push_back(std::move(device));
  }
  devices_ = std::move(devices);
  if (devices_.empty()) return Status::NotFound("NVML lists no NVIDIA GPU");
  return Status::Ok();
}

void NvidiaGpuCollector::ReadDevice(Device& device, WallTime now, std::vector<Sample>& out) {
  const internal::NvmlLibrary::Functions& f = library_->functions();
  // Whether a call's value can be used; records NOT_SUPPORTED and turns other errors into
  // missing samples of `descs`.
  const auto ok =
      [&](nvml::Return ret, Call call,
          std::initializer_list<std::pair<const MetricDesc*, const SeriesLabels*>> descs) {
        if (ret == nvml::kSuccess) return true;
        if (ret == nvml::kErrorNotSupported) {
          device.unsupported |= call;
          return false;
        }
        if (ret == nvml::kErrorGpuIsLost) reinit_pending_ = true;
        for (const auto& [desc, labels] : descs) {
          out.push_back(MissingSample(*desc, *labels, nvml::ErrorName(ret), now));
        }
        return false;
      };
  const auto wanted = [&](bool exported, Call call) {
    return exported && (device.unsupported & call) == 0;
  };
  const SeriesLabels& labels = device.labels;

  if (wanted(f.get_utilization != nullptr, kUtilization)) {
    nvml::Utilization utilization{};
    if (ok(f.get_utilization(device.handle, &utilization), kUtilization,
           {{&internal::kGpuUtilization, &device.utilization_labels},
            {&internal::kGpuMemoryBusy, &labels}})) {
      out.push_back(ValueSample(internal::kGpuUtilization, device.utilization_labels,
                                std::min(utilization.gpu, 100u) * kPercent, now));
      out.push_back(ValueSample(internal::kGpuMemoryBusy, labels,
                                std::min(utilization.memory, 100u) * kPercent, now));
    }
  }
  if (wanted(f.get_memory != nullptr, kMemory)) {
    nvml::Memory memory{};
    if (ok(f.get_memory(device.handle, &memory), kMemory,
           {{&internal::kGpuMemoryUsed, &labels}, {&internal::kGpuMemoryTotal, &labels}})) {
      out.push_back(
          ValueSample(internal::kGpuMemoryUsed, labels, static_cast<double>(memory.used), now));
      out.push_back(
          ValueSample(internal::kGpuMemoryTotal, labels, static_cast<double>(memory.total), now));
    }
  }
  const auto scalar = [&](auto function, Call call, const MetricDesc& desc, double scale,
                          auto... args) {
    if (!wanted(function != nullptr, call)) return;
    unsigned int value = 0;
    if (ok(function(device.handle, args..., &value), call, {{&desc, &labels}})) {
      out.push_back(ValueSample(desc, labels, value * scale, now));
    }
  };
  scalar(f.get_temperature, kTemperature, internal::kGpuTemperature, 1.0, nvml::kTemperatureGpu);
  scalar(f.get_power_usage, kPower, internal::kGpuPower, kMilli);
  scalar(f.get_enforced_power_limit, kPowerLimit, internal::kGpuPowerLimit, kMilli);
  scalar(f.get_clock, kSmClock, internal::kGpuFrequency, kMega, nvml::kClockSm);
  scalar(f.get_max_clock, kMaxSmClock, internal::kGpuFrequencyHardwareMax, kMega, nvml::kClockSm);
  scalar(f.get_clock, kMemClock, internal::kGpuMemoryFrequency, kMega, nvml::kClockMem);

  if (wanted(f.get_total_energy != nullptr, kEnergy)) {
    unsigned long long millijoules = 0;
    if (ok(f.get_total_energy(device.handle, &millijoules), kEnergy,
           {{&internal::kGpuEnergy, &labels}})) {
      out.push_back(ValueSample(internal::kGpuEnergy, labels,
                                static_cast<double>(millijoules) * kMilli, now));
    }
  }
  if (wanted(f.get_clock_event_reasons != nullptr, kEventReasons)) {
    unsigned long long reasons = 0;
    const nvml::Return ret = f.get_clock_event_reasons(device.handle, &reasons);
    if (ret == nvml::kSuccess) {
      for (std::size_t i = 0; i < std::size(kReasons); ++i) {
        out.push_back(internal::ThrottledSample(device.reason_labels[i],
                                                (reasons & kReasons[i].bit) != 0, now));
      }
    } else if (ret == nvml::kErrorNotSupported) {
      device.unsupported |= kEventReasons;
    } else {
      if (ret == nvml::kErrorGpuIsLost) reinit_pending_ = true;
      for (const SeriesLabels& reason_labels : device.reason_labels) {
        out.push_back(
            MissingSample(internal::kThrottled, reason_labels, nvml::ErrorName(ret), now));
      }
    }
  }
}

Status NvidiaGpuCollector::CollectInto(WallTime now, std::vector<Sample>& out) {
  if (reload_.StartTick()) {
    // First tick, or a periodic check: load NVML if it is not, re-initialise it after a lost GPU,
    // or else list the devices again (an external GPU may have been attached).
    if (reinit_pending_) Unload();
    reinit_pending_ = false;
    load_status_ = Load();
    reload_.Scanned();
  }
  if (!library_ || devices_.empty()) return load_status_;
  const bool was_pending = reinit_pending_;
  for (Device& device : devices_) ReadDevice(device, now, out);
  if (reinit_pending_ && !was_pending) reload_.Scanned();  // Re-initialise a full period later.
  return Status::Ok();
}

}  // namespace edgemond::collectors
