#include "collectors/amd_gpu_collector.h"

#include <algorithm>
#include <utility>

#include "collectors/internal/discovery.h"
#include "collectors/internal/gpu_metrics.h"
#include "collectors/internal/hwmon_parse.h"
#include "collectors/internal/names.h"
#include "collectors/internal/samples.h"
#include "collectors/internal/sysfs_value.h"
#include "core/text.h"

namespace edgemond::collectors {
namespace {

using internal::MissingReasonFromStatus;
using internal::MissingSample;
using internal::ReadSysfsInt;
using internal::ValueSample;

constexpr std::string_view kDrmDir = "/sys/class/drm";
constexpr std::string_view kAmdVendor = "0x1002";
constexpr std::string_view kSuspended = "runtime-suspended";
constexpr double kPercent = 0.01;
constexpr double kMicro = 1e-6;
constexpr double kMilli = 1e-3;

std::string ReadTrimmed(const RootedFs& fs, const std::string& path) {
  auto text = fs.ReadFile(path, 4096);
  return text.ok() ? SanitizeUtf8(Trim(*text)) : std::string();
}

}  // namespace

std::optional<std::string> AmdGpuCollector::Problem(const Value& value, std::int64_t raw) {
  if (value.desc == &internal::kGpuTemperature) {
    return internal::HwmonValueProblem(internal::HwmonKind::kTemp, raw);
  }
  if (raw < 0 || (value.utilization && raw > 100))
    return "implausible value " + std::to_string(raw);
  return std::nullopt;
}

AmdGpuCollector::AmdGpuCollector(const RootedFs& fs, int rescan_every_ticks)
    : fs_(&fs), rescan_(rescan_every_ticks) {}

std::vector<const MetricDesc*> AmdGpuCollector::Metrics() {
  return {&internal::kGpuUtilization,    &internal::kGpuMemoryBusy,  &internal::kGpuMemoryUsed,
          &internal::kGpuMemoryTotal,    &internal::kGpuRailgated,   &internal::kGpuPower,
          &internal::kGpuPowerLimit,     &internal::kGpuTemperature, &internal::kGpuFrequency,
          &internal::kGpuMemoryFrequency};
}

Status AmdGpuCollector::Scan() {
  internal::ReusableFiles old(*fs_);
  for (Gpu& gpu : gpus_) {
    if (gpu.runtime_status) old.Keep(std::move(*gpu.runtime_status));
    for (Value& value : gpu.values) old.Keep(std::move(value.file));
  }
  gpus_.clear();
  auto entries = fs_->ListDir(kDrmDir);
  if (!entries.ok()) return entries.status();
  std::vector<std::pair<int, std::string>> cards;
  for (const std::string& entry : *entries) {
    const int index = internal::IndexedName(entry, "card");
    if (index >= 0) cards.emplace_back(index, entry);
  }
  std::sort(cards.begin(), cards.end());
  const auto chips = internal::ListHwmonChips(*fs_);
  std::vector<std::string> seen;
  for (const auto& [index, card] : cards) {
    auto device = fs_->RealPath(std::string(kDrmDir) + "/" + card + "/device");
    if (!device.ok() || ReadTrimmed(*fs_, *device + "/vendor") != kAmdVendor) continue;
    if (std::find(seen.begin(), seen.end(), *device) != seen.end()) continue;
    seen.push_back(*device);
    const std::string& dir = *device;
    std::string product = ReadTrimmed(*fs_, dir + "/product_name");
    if (product.empty()) product = "amdgpu " + ReadTrimmed(*fs_, dir + "/device");
    const std::string id = internal::DeviceId(*fs_, dir, "amdgpu");
    Gpu gpu{.device_dir = dir,
            .labels = Labels{{"gpu", id}},
            .utilization_labels = Labels{{"gpu", id}, {"name", product}},
            .runtime_status = std::nullopt,
            .values = {}};
    if (fs_->Exists(dir + "/power/runtime_status")) {
      gpu.runtime_status = old.Take(dir + "/power/runtime_status");
    }
    const auto add = [&](const MetricDesc& desc, const std::string& path, double scale,
                         bool utilization = false) {
      if (fs_->Exists(path)) gpu.values.push_back(Value{&desc, old.Take(path), scale, utilization});
    };
    add(internal::kGpuUtilization, dir + "/gpu_busy_percent", kPercent, true);
    add(internal::kGpuMemoryBusy, dir + "/mem_busy_percent", kPercent, true);
    add(internal::kGpuMemoryUsed, dir + "/mem_info_vram_used", 1);
    add(internal::kGpuMemoryTotal, dir + "/mem_info_vram_total", 1);
    if (chips.ok()) {
      const auto chip = std::find_if(chips->begin(), chips->end(), [&](const auto& c) {
        return c.name == "amdgpu" && c.device_path == dir;
      });
      if (chip != chips->end()) {
        const std::string hw = chip->attr_dir + "/";
        if (fs_->Exists(hw + "power1_average")) {
          add(internal::kGpuPower, hw + "power1_average", kMicro);
        } else {
          add(internal::kGpuPower, hw + "power1_input", kMicro);
        }
        add(internal::kGpuPowerLimit, hw + "power1_cap", kMicro);
        add(internal::kGpuTemperature, hw + "temp1_input", kMilli);
        add(internal::kGpuFrequency, hw + "freq1_input", 1);
        add(internal::kGpuMemoryFrequency, hw + "freq2_input", 1);
      }
    }
    gpus_.push_back(std::move(gpu));
  }
  if (gpus_.empty()) return Status::NotFound("no amdgpu device under /sys/class/drm");
  return Status::Ok();
}

bool AmdGpuCollector::ReadGpu(Gpu& gpu, WallTime now, std::vector<Sample>& out) {
  bool vanished = false;
  bool suspended = false;
  if (gpu.runtime_status) {
    if (Status status = gpu.runtime_status->ReadInto(text_); status.ok()) {
      suspended = Trim(text_) == "suspended";
      out.push_back(ValueSample(internal::kGpuRailgated, gpu.labels, suspended ? 1 : 0, now));
    } else {
      vanished |= status.IsNotFound();
      out.push_back(
          MissingSample(internal::kGpuRailgated, gpu.labels, MissingReasonFromStatus(status), now));
    }
  }
  for (Value& value : gpu.values) {
    const SeriesLabels& labels =
        value.desc == &internal::kGpuUtilization ? gpu.utilization_labels : gpu.labels;
    if (suspended) {
      // Reading would wake the GPU; asleep, it is idle.
      if (value.desc == &internal::kGpuUtilization) {
        out.push_back(ValueSample(*value.desc, labels, 0.0, now));
      } else {
        out.push_back(MissingSample(*value.desc, labels, std::string(kSuspended), now));
      }
      continue;
    }
    auto raw = ReadSysfsInt(value.file, text_);
    if (!raw.ok()) {
      vanished |= raw.status().IsNotFound();
      out.push_back(MissingSample(*value.desc, labels, MissingReasonFromStatus(raw.status()), now));
    } else if (auto problem = Problem(value, *raw)) {
      out.push_back(MissingSample(*value.desc, labels, std::move(*problem), now));
    } else {
      out.push_back(ValueSample(*value.desc, labels, static_cast<double>(*raw) * value.scale, now));
    }
  }
  return vanished;
}

Status AmdGpuCollector::CollectInto(WallTime now, std::vector<Sample>& out) {
  return internal::ScanAndReadEach(
      rescan_, scan_status_, out, [this] { return Scan(); }, gpus_,
      [&](Gpu& gpu, std::vector<Sample>& samples) { return ReadGpu(gpu, now, samples); });
}

}  // namespace edgemond::collectors
