#include "collectors/jetson_gpu_collector.h"

#include <algorithm>
#include <cctype>
#include <utility>

#include "collectors/internal/gpu_metrics.h"
#include "collectors/internal/names.h"
#include "collectors/internal/samples.h"
#include "collectors/internal/sysfs_value.h"
#include "collectors/internal/thermal_parse.h"
#include "collectors/internal/throttle.h"
#include "core/text.h"

namespace edgemond::collectors {
namespace {

using internal::MissingReasonFromStatus;
using internal::MissingSample;
using internal::ReadSysfsInt;
using internal::ValueSample;

constexpr std::string_view kRailgated = "railgated";
constexpr std::int64_t kPerMille = 1000;

std::string Lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

struct GpuZone {
  std::string temp_path;
  std::optional<std::int64_t> passive_trip_millicelsius;
};

// The GPU's thermal zone: the first zone (in zone-number order) whose type starts with "gpu",
// and its lowest passive trip point.
std::optional<GpuZone> FindGpuZone(const RootedFs& fs) {
  auto entries = fs.ListDir("/sys/class/thermal");
  if (!entries.ok()) return std::nullopt;
  std::vector<std::pair<int, std::string>> zones;
  for (const std::string& entry : *entries) {
    const int index = internal::IndexedName(entry, "thermal_zone");
    if (index >= 0) zones.emplace_back(index, "/sys/class/thermal/" + entry);
  }
  std::sort(zones.begin(), zones.end());
  for (const auto& [index, dir] : zones) {
    auto type = fs.ReadFile(dir + "/type", 4096);
    if (!type.ok() || !StartsWith(Lower(Trim(*type)), "gpu")) continue;
    GpuZone zone;
    // By the zone's own directory, links resolved, as the thermal collector names it: the two
    // then share one read of the file per tick (internal/tick_files.h).
    const auto real_dir = fs.RealPath(dir);
    zone.temp_path = (real_dir.ok() ? *real_dir : dir) + "/temp";
    auto files = fs.ListDir(dir);
    if (files.ok()) {
      for (const std::string& file : *files) {
        const int trip = internal::TripIndexFromTypeFile(file);
        if (trip < 0) continue;
        auto trip_type = fs.ReadFile(dir + "/" + file, 4096);
        if (!trip_type.ok() ||
            internal::ParseTripType(*trip_type) != internal::TripType::kPassive) {
          continue;
        }
        auto temp = fs.ReadFile(dir + "/trip_point_" + std::to_string(trip) + "_temp", 4096);
        auto millicelsius =
            temp.ok() ? internal::ParseSysfsInt(*temp) : Result<std::int64_t>(temp.status());
        if (!millicelsius.ok() ||
            !internal::IsExportedTrip(internal::TripType::kPassive, *millicelsius)) {
          continue;
        }
        if (!zone.passive_trip_millicelsius || *millicelsius < *zone.passive_trip_millicelsius) {
          zone.passive_trip_millicelsius = *millicelsius;
        }
      }
    }
    return zone;
  }
  return std::nullopt;
}

// The highest entry of devfreq's available_frequencies ("76800000 153600000 ... 921600000").
std::optional<std::int64_t> HighestFrequency(const RootedFs& fs, const std::string& devfreq_dir) {
  auto text = fs.ReadFile(devfreq_dir + "/available_frequencies", 16384);
  if (!text.ok()) return std::nullopt;
  std::optional<std::int64_t> highest;
  for (std::string_view field : SplitFields(Trim(*text))) {
    auto hz = ParseInt64(field);
    if (hz.ok() && *hz > 0 && (!highest || *hz > *highest)) highest = *hz;
  }
  return highest;
}

}  // namespace

JetsonGpuCollector::JetsonGpuCollector(const RootedFs& fs, internal::TickFiles* shared_files,
                                       int rescan_every_ticks)
    : fs_(&fs), rescan_(rescan_every_ticks), files_(fs, shared_files) {}

std::vector<const MetricDesc*> JetsonGpuCollector::Metrics() {
  return {&internal::kGpuUtilization,
          &internal::kGpuFrequency,
          &internal::kGpuFrequencyMin,
          &internal::kGpuFrequencyMax,
          &internal::kGpuFrequencyHardwareMax,
          &internal::kGpuGovernorInfo,
          &internal::kGpuRailgated,
          &internal::kGpuTemperature,
          &internal::kThrottled};
}

Status JetsonGpuCollector::Scan() {
  std::vector<internal::JetsonGpu> found = internal::FindJetsonGpus(*fs_);
  std::vector<Gpu> gpus;
  const std::optional<GpuZone> zone = found.empty() ? std::nullopt : FindGpuZone(*fs_);
  for (internal::JetsonGpu& info : found) {
    const auto old = std::find_if(gpus_.begin(), gpus_.end(), [&](const Gpu& gpu) {
      return gpu.info.device_dir == info.device_dir && gpu.info.devfreq_dir == info.devfreq_dir;
    });
    if (old != gpus_.end()) {
      // Keep the open fds; limits and trip points may have changed.
      old->hardware_max_hz = HighestFrequency(*fs_, old->info.devfreq_dir);
      gpus.push_back(std::move(*old));
      continue;
    }
    const std::string& dev = info.device_dir;
    const std::string& freq = info.devfreq_dir;
    Gpu gpu{
        .info = info,
        .labels = Labels{{"gpu", info.id}},
        .utilization_labels = Labels{{"gpu", info.id}, {"name", info.name}},
        .component = internal::GpuComponent(info.id),
        .cap_labels = internal::ThrottleLabels(internal::GpuComponent(info.id),
                                               internal::kReasonFrequencyCap),
        .thermal_labels =
            internal::ThrottleLabels(internal::GpuComponent(info.id), internal::kReasonThermal),
        .governor_name = {},
        .governor_labels = {},
        .load = std::nullopt,
        .runtime_status = std::nullopt,
        .cur_freq = files_.Open(freq + "/cur_freq"),
        .min_freq = files_.Open(freq + "/min_freq"),
        .max_freq = files_.Open(freq + "/max_freq"),
        .governor = files_.Open(freq + "/governor"),
        .hardware_max_hz = HighestFrequency(*fs_, freq),
        .zone_temp = std::nullopt,
        .passive_trip_millicelsius = std::nullopt,
    };
    if (fs_->Exists(dev + "/load")) gpu.load = files_.Open(dev + "/load");
    if (fs_->Exists(dev + "/power/runtime_status")) {
      gpu.runtime_status = files_.Open(dev + "/power/runtime_status");
    }
    gpus.push_back(std::move(gpu));
  }
  // One SoC, one GPU zone: it belongs to the (only) integrated GPU.
  if (gpus.size() == 1 && zone) {
    if (!gpus[0].zone_temp || gpus[0].zone_temp->path() != zone->temp_path) {
      gpus[0].zone_temp = files_.Open(zone->temp_path);
    }
    gpus[0].passive_trip_millicelsius = zone->passive_trip_millicelsius;
  }
  gpus_ = std::move(gpus);
  if (gpus_.empty()) return Status::NotFound("no Jetson GPU under /sys/class/devfreq");
  return Status::Ok();
}

bool JetsonGpuCollector::ReadGpu(Gpu& gpu, WallTime now, std::vector<Sample>& out) {
  bool vanished = false;
  const auto note = [&](const Status& status) { vanished |= status.IsNotFound(); };

  std::optional<bool> railgated;
  if (gpu.runtime_status) {
    if (Status status = gpu.runtime_status->ReadInto(text_); status.ok()) {
      railgated = Trim(text_) == "suspended";
      out.push_back(ValueSample(internal::kGpuRailgated, gpu.labels, *railgated ? 1 : 0, now));
    } else {
      note(status);
      out.push_back(
          MissingSample(internal::kGpuRailgated, gpu.labels, MissingReasonFromStatus(status), now));
    }
  }
  const bool gated = railgated.value_or(false);

  std::optional<std::int64_t> per_mille;
  if (gpu.load) {
    auto load = ReadSysfsInt(*gpu.load, text_);
    if (load.ok()) {
      per_mille = std::clamp<std::int64_t>(*load, 0, kPerMille);
      out.push_back(ValueSample(internal::kGpuUtilization, gpu.utilization_labels,
                                static_cast<double>(*per_mille) / kPerMille, now));
    } else if (gated) {
      per_mille = 0;
      out.push_back(ValueSample(internal::kGpuUtilization, gpu.utilization_labels, 0.0, now));
    } else {
      note(load.status());
      out.push_back(MissingSample(internal::kGpuUtilization, gpu.utilization_labels,
                                  MissingReasonFromStatus(load.status()), now));
    }
  }

  const auto read_hz = [&](internal::TickFile& file,
                           const MetricDesc& desc) -> std::optional<std::int64_t> {
    auto hz = ReadSysfsInt(file, text_);
    if (hz.ok() && *hz >= 0) {
      out.push_back(ValueSample(desc, gpu.labels, static_cast<double>(*hz), now));
      return *hz;
    }
    std::string reason;
    if (hz.ok()) {
      reason = "implausible value " + std::to_string(*hz);
    } else {
      note(hz.status());
      reason = gated ? std::string(kRailgated) : MissingReasonFromStatus(hz.status());
    }
    out.push_back(MissingSample(desc, gpu.labels, std::move(reason), now));
    return std::nullopt;
  };
  const std::optional<std::int64_t> cur_hz = read_hz(gpu.cur_freq, internal::kGpuFrequency);
  read_hz(gpu.min_freq, internal::kGpuFrequencyMin);
  const std::optional<std::int64_t> max_hz = read_hz(gpu.max_freq, internal::kGpuFrequencyMax);
  if (gpu.hardware_max_hz) {
    out.push_back(ValueSample(internal::kGpuFrequencyHardwareMax, gpu.labels,
                              static_cast<double>(*gpu.hardware_max_hz), now));
  }
  if (Status status = gpu.governor.ReadInto(text_); status.ok() && !Trim(text_).empty()) {
    std::string governor = SanitizeUtf8(Trim(text_));
    if (gpu.governor_labels.empty() || governor != gpu.governor_name) {
      gpu.governor_labels = Labels{{"gpu", gpu.info.id}, {"governor", governor}};
      gpu.governor_name = std::move(governor);
    }
    out.push_back(ValueSample(internal::kGpuGovernorInfo, gpu.governor_labels, 1.0, now));
  } else {
    note(status);
  }

  std::optional<std::int64_t> millicelsius;
  if (gpu.zone_temp) {
    auto temp = ReadSysfsInt(*gpu.zone_temp, text_);
    std::optional<std::string> problem;
    if (!temp.ok()) {
      note(temp.status());
      problem = MissingReasonFromStatus(temp.status());
    } else {
      problem = internal::ZoneTemperatureProblem(*temp);
    }
    if (problem) {
      out.push_back(MissingSample(internal::kGpuTemperature, gpu.labels, std::move(*problem), now));
    } else {
      millicelsius = *temp;
      out.push_back(ValueSample(internal::kGpuTemperature, gpu.labels,
                                static_cast<double>(*temp) / 1000, now));
    }
  }

  if (gpu.hardware_max_hz) {
    const SeriesLabels& cap = gpu.cap_labels;
    if (max_hz) {
      out.push_back(
          ValueSample(internal::kThrottled, cap, *max_hz < *gpu.hardware_max_hz ? 1 : 0, now));
    } else {
      out.push_back(MissingSample(internal::kThrottled, cap, "max_freq unreadable", now));
    }
    if (gpu.zone_temp && gpu.passive_trip_millicelsius) {
      const SeriesLabels& thermal = gpu.thermal_labels;
      if (cur_hz && millicelsius) {
        // An idle GPU runs slow because it is idle; only a busy one is held down.
        const bool hot = *millicelsius >= *gpu.passive_trip_millicelsius;
        const bool busy = !gated && per_mille.value_or(1) > 0;
        out.push_back(ValueSample(internal::kThrottled, thermal,
                                  hot && busy && *cur_hz < *gpu.hardware_max_hz ? 1 : 0, now));
      } else {
        out.push_back(MissingSample(internal::kThrottled, thermal,
                                    cur_hz ? "temperature unreadable" : "cur_freq unreadable",
                                    now));
      }
    }
  }
  return vanished;
}

Status JetsonGpuCollector::CollectInto(WallTime now, std::vector<Sample>& out) {
  files_.StartCollection();
  return internal::ScanAndReadEach(
      rescan_, scan_status_, out, [this] { return Scan(); }, gpus_,
      [&](Gpu& gpu, std::vector<Sample>& samples) { return ReadGpu(gpu, now, samples); });
}

}  // namespace edgemond::collectors
