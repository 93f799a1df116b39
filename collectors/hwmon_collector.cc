#include "collectors/hwmon_collector.h"

#include <algorithm>
#include <map>
#include <utility>

#include "collectors/internal/discovery.h"
#include "collectors/internal/samples.h"
#include "collectors/internal/sysfs_value.h"
#include "core/text.h"

namespace edgemond::collectors {
namespace {

using internal::HwmonItem;
using internal::HwmonKind;
using internal::MissingSample;
using internal::ValueSample;

constexpr MetricDesc kTemperature{"edgemond_hwmon_temperature_celsius",
                                  "Temperature reported by a hardware monitoring chip",
                                  MetricType::kGauge, "celsius"};
constexpr MetricDesc kTemperatureCrit{
    "edgemond_hwmon_temperature_crit_celsius",
    "Critical temperature limit of a hardware monitoring temperature sensor", MetricType::kGauge,
    "celsius"};
constexpr MetricDesc kVoltage{"edgemond_hwmon_voltage_volts",
                              "Voltage reported by a hardware monitoring chip", MetricType::kGauge,
                              "volts"};
constexpr MetricDesc kCurrent{"edgemond_hwmon_current_amperes",
                              "Current reported by a hardware monitoring chip", MetricType::kGauge,
                              "amperes"};
constexpr MetricDesc kPower{"edgemond_hwmon_power_watts",
                            "Instantaneous power reported by a hardware monitoring chip",
                            MetricType::kGauge, "watts"};
constexpr MetricDesc kPowerAverage{"edgemond_hwmon_power_average_watts",
                                   "Average power reported by a hardware monitoring chip over its "
                                   "own averaging interval",
                                   MetricType::kGauge, "watts"};
constexpr MetricDesc kEnergy{"edgemond_hwmon_energy_joules_total",
                             "Energy counted by a hardware monitoring chip", MetricType::kCounter,
                             "joules"};
constexpr MetricDesc kFan{"edgemond_hwmon_fan_rpm",
                          "Fan speed reported by a hardware monitoring chip", MetricType::kGauge,
                          "rpm"};
constexpr MetricDesc kPwm{"edgemond_hwmon_pwm_ratio",
                          "PWM duty cycle of a fan output, 0 to 1 (pwmN / 255)", MetricType::kGauge,
                          "ratio"};

const MetricDesc* InputDesc(HwmonKind kind) {
  switch (kind) {
    case HwmonKind::kTemp:
      return &kTemperature;
    case HwmonKind::kIn:
      return &kVoltage;
    case HwmonKind::kCurr:
      return &kCurrent;
    case HwmonKind::kPower:
      return &kPower;
    case HwmonKind::kEnergy:
      return &kEnergy;
    case HwmonKind::kFan:
      return &kFan;
    case HwmonKind::kPwm:
      return &kPwm;
  }
  return nullptr;
}

// Which files one sensor stem has.
struct Stem {
  bool input = false;
  bool average = false;
  bool label = false;
  bool crit = false;
  bool value = false;
};

}  // namespace

HwmonCollector::HwmonCollector(const RootedFs& fs, internal::TickFiles* shared_files,
                               int rescan_every_ticks)
    : fs_(&fs), rescan_(rescan_every_ticks), files_(fs, shared_files) {}

std::vector<const MetricDesc*> HwmonCollector::Metrics() {
  return {&kTemperature,  &kTemperatureCrit, &kVoltage, &kCurrent, &kPower,
          &kPowerAverage, &kEnergy,          &kFan,     &kPwm};
}

std::string HwmonCollector::ChipIdForDevice(const RootedFs& fs, const std::string& device_path,
                                            const std::string& chip_name) {
  return internal::DeviceId(fs, device_path, chip_name);
}

Status HwmonCollector::Scan() {
  auto chips = internal::ListHwmonChips(*fs_);
  if (!chips.ok()) {
    sensors_.clear();
    thresholds_.clear();
    return chips.status();
  }

  // Sensors whose file survives the rescan keep their open fd: the old sensors still hold it.
  const auto file_for = [&](const std::string& path) { return files_.Open(path); };

  std::vector<Sensor> sensors;
  std::vector<Threshold> thresholds;
  for (const internal::HwmonChip& chip : *chips) {
    auto files = fs_->ListDir(chip.attr_dir);
    if (!files.ok()) continue;
    std::map<std::pair<HwmonKind, int>, Stem> stems;  // Ordered: kind, then index.
    for (const std::string& file : *files) {
      const auto attribute = internal::ParseHwmonAttributeName(file);
      if (!attribute) continue;
      Stem& stem = stems[{attribute->kind, attribute->index}];
      switch (attribute->item) {
        case HwmonItem::kInput:
          stem.input = true;
          break;
        case HwmonItem::kAverage:
          stem.average = true;
          break;
        case HwmonItem::kLabel:
          stem.label = true;
          break;
        case HwmonItem::kCrit:
          stem.crit = true;
          break;
        case HwmonItem::kValue:
          stem.value = true;
          break;
      }
    }
    for (const auto& [key, stem] : stems) {
      // Named copies, not a structured binding: the lambda below captures `kind`, which
      // Clang 14 does not allow of a binding.
      const HwmonKind kind = key.first;
      const int index = key.second;
      const std::string sensor = internal::HwmonStem(kind, index);
      const std::string base = chip.attr_dir + "/" + sensor;
      std::string label;
      if (stem.label) {
        if (auto text = fs_->ReadFile(base + "_label"); text.ok()) {
          label = SanitizeUtf8(Trim(*text));
        }
      }
      const SeriesLabels labels{
          {"chip", chip.id}, {"chip_name", chip.name}, {"sensor", sensor}, {"label", label}};
      const double scale = internal::HwmonScale(chip.name, kind, index);
      const auto add = [&](const MetricDesc* desc, const std::string& path) {
        sensors.push_back(Sensor{desc, labels, file_for(path), kind, scale});
      };
      if (stem.input) add(InputDesc(kind), base + "_input");
      if (stem.average) add(&kPowerAverage, base + "_average");
      if (stem.value) add(InputDesc(kind), base);
      if (stem.crit) {
        // Unset limits read as nonsense (an NVMe drive reports -273150); those are left out.
        auto text = fs_->ReadFile(base + "_crit");
        auto raw = text.ok() ? internal::ParseSysfsInt(*text) : Result<std::int64_t>(text.status());
        if (raw.ok() && !internal::HwmonValueProblem(kind, *raw)) {
          thresholds.push_back(
              Threshold{&kTemperatureCrit, labels, static_cast<double>(*raw) * scale});
        }
      }
    }
  }
  sensors_ = std::move(sensors);
  thresholds_ = std::move(thresholds);
  if (chips->empty()) return Status::NotFound("no hwmon chips under /sys/class/hwmon");
  return Status::Ok();
}

bool HwmonCollector::ReadSensors(WallTime now, std::vector<Sample>& out) {
  bool vanished = false;
  for (Sensor& sensor : sensors_) {
    if (Status status = sensor.file.ReadInto(text_); !status.ok()) {
      vanished |= status.IsNotFound();
      out.push_back(MissingSample(*sensor.desc, sensor.labels,
                                  internal::MissingReasonFromStatus(status), now));
    } else if (auto raw = internal::ParseSysfsInt(text_); !raw.ok()) {
      out.push_back(MissingSample(*sensor.desc, sensor.labels,
                                  internal::MissingReasonFromStatus(raw.status()), now));
    } else if (auto problem = internal::HwmonValueProblem(sensor.kind, *raw)) {
      out.push_back(MissingSample(*sensor.desc, sensor.labels, std::move(*problem), now));
    } else {
      out.push_back(
          ValueSample(*sensor.desc, sensor.labels, static_cast<double>(*raw) * sensor.scale, now));
    }
  }
  for (const Threshold& threshold : thresholds_) {
    out.push_back(ValueSample(*threshold.desc, threshold.labels, threshold.value, now));
  }
  return vanished;
}

Status HwmonCollector::CollectInto(WallTime now, std::vector<Sample>& out) {
  files_.StartCollection();
  return internal::ScanAndRead(
      rescan_, scan_status_, out, [this] { return Scan(); },
      [&](std::vector<Sample>& samples) { return ReadSensors(now, samples); });
}

}  // namespace edgemond::collectors
