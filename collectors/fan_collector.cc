#include "collectors/fan_collector.h"

#include <algorithm>
#include <utility>

#include "collectors/internal/discovery.h"
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

constexpr MetricDesc kFanRpm{"edgemond_fan_rpm", "Fan speed measured by its tachometer",
                             MetricType::kGauge, "rpm"};
constexpr MetricDesc kFanPwm{"edgemond_fan_pwm_ratio",
                             "Duty cycle the fan is driven at, 0 to 1 (PWM value / 255)",
                             MetricType::kGauge, "ratio"};

constexpr std::int64_t kPwmMax = 255;

// The fan's name: its device's name, from the chip id ("platform/pwm-fan" -> "pwm-fan").
std::string FanName(const internal::HwmonChip& chip) {
  return std::string(internal::Basename(chip.id));
}

// The first existing file among `names` in `dir`, as a device path.
std::optional<std::string> FirstExisting(const RootedFs& fs, const std::string& dir,
                                         std::initializer_list<std::string_view> names) {
  for (std::string_view name : names) {
    std::string path = dir + "/" + std::string(name);
    if (fs.Exists(path)) return path;
  }
  return std::nullopt;
}

}  // namespace

FanCollector::FanCollector(const RootedFs& fs, internal::TickFiles* shared_files,
                           int rescan_every_ticks)
    : fs_(&fs), rescan_(rescan_every_ticks), files_(fs, shared_files) {}

std::vector<const MetricDesc*> FanCollector::Metrics() { return {&kFanPwm, &kFanRpm}; }

Status FanCollector::Scan() {
  internal::ReusableFiles old(files_);
  for (Fan& fan : fans_) {
    if (fan.pwm) old.Keep(std::move(*fan.pwm));
    if (fan.rpm) old.Keep(std::move(*fan.rpm));
  }
  std::vector<Fan> fans;
  struct Tach {
    std::string name;
    std::string device_path;
    std::string rpm_path;
  };
  std::vector<Tach> tachs;
  if (auto chips = internal::ListHwmonChips(*fs_); chips.ok()) {
    for (const internal::HwmonChip& chip : *chips) {
      if (chip.name == "pwmfan") {
        Fan fan{FanName(chip), chip.device_path, std::nullopt, std::nullopt, {}};
        if (auto pwm = FirstExisting(*fs_, chip.attr_dir, {"pwm1"})) fan.pwm = files_.Open(*pwm);
        if (auto rpm = FirstExisting(*fs_, chip.attr_dir, {"fan1_input"})) {
          fan.rpm = files_.Open(*rpm);
        }
        if (fan.pwm || fan.rpm) fans.push_back(std::move(fan));
      } else if (chip.name == "pwm_tach") {
        if (auto rpm = FirstExisting(*fs_, chip.attr_dir, {"rpm", "fan1_input"})) {
          tachs.push_back(Tach{FanName(chip), chip.device_path, *rpm});
        }
      }
    }
  }
  // NVIDIA's L4T 32 driver: attributes on the platform device itself.
  if (auto devices = fs_->ListDir("/sys/bus/platform/devices"); devices.ok()) {
    for (const std::string& device : *devices) {
      if (device.find("pwm-fan") == std::string::npos &&
          device.find("pwm_fan") == std::string::npos) {
        continue;
      }
      auto dir = fs_->RealPath("/sys/bus/platform/devices/" + device);
      if (!dir.ok()) continue;
      auto pwm = FirstExisting(*fs_, *dir, {"target_pwm"});
      if (!pwm) continue;  // The upstream driver's device: its hwmon chip was handled above.
      Fan fan{device, *dir, std::nullopt, std::nullopt, {}};
      fan.pwm = files_.Open(*pwm);
      if (auto rpm = FirstExisting(*fs_, *dir, {"rpm_measured"})) fan.rpm = files_.Open(*rpm);
      fans.push_back(std::move(fan));
    }
  }
  // Join each tachometer to its fan: the same device, else the only fan without one.
  for (Tach& tach : tachs) {
    auto fan = std::find_if(fans.begin(), fans.end(), [&](const Fan& f) {
      return !f.rpm && !tach.device_path.empty() && f.device_path == tach.device_path;
    });
    if (fan == fans.end() && tachs.size() == 1 &&
        std::count_if(fans.begin(), fans.end(), [](const Fan& f) { return !f.rpm; }) == 1) {
      fan = std::find_if(fans.begin(), fans.end(), [](const Fan& f) { return !f.rpm; });
    }
    if (fan != fans.end()) {
      fan->rpm = files_.Open(tach.rpm_path);
    } else {
      Fan own{tach.name, tach.device_path, std::nullopt, std::nullopt, {}};
      own.rpm = files_.Open(tach.rpm_path);
      fans.push_back(std::move(own));
    }
  }
  std::vector<std::string> names;
  for (const Fan& fan : fans) names.push_back(fan.name);
  names = internal::MakeUnique(names);
  for (std::size_t i = 0; i < fans.size(); ++i) {
    fans[i].name = std::move(names[i]);
    fans[i].labels = Labels{{"fan", fans[i].name}};
    if (fans[i].pwm) fans[i].pwm = old.Take(fans[i].pwm->path());
    if (fans[i].rpm) fans[i].rpm = old.Take(fans[i].rpm->path());
  }
  fans_ = std::move(fans);
  if (fans_.empty()) return Status::NotFound("no pwm-fan or tachometer");
  return Status::Ok();
}

bool FanCollector::ReadFan(Fan& fan, WallTime now, std::vector<Sample>& out) {
  bool vanished = false;
  const SeriesLabels& labels = fan.labels;
  if (fan.pwm) {
    auto raw = ReadSysfsInt(*fan.pwm, text_);
    if (!raw.ok()) {
      vanished |= raw.status().IsNotFound();
      out.push_back(MissingSample(kFanPwm, labels, MissingReasonFromStatus(raw.status()), now));
    } else if (*raw < 0 || *raw > kPwmMax) {
      out.push_back(
          MissingSample(kFanPwm, labels, "implausible value " + std::to_string(*raw), now));
    } else {
      out.push_back(ValueSample(kFanPwm, labels, static_cast<double>(*raw) / kPwmMax, now));
    }
  }
  if (fan.rpm) {
    auto raw = ReadSysfsInt(*fan.rpm, text_);
    if (!raw.ok()) {
      vanished |= raw.status().IsNotFound();
      out.push_back(MissingSample(kFanRpm, labels, MissingReasonFromStatus(raw.status()), now));
    } else if (*raw < 0) {
      out.push_back(
          MissingSample(kFanRpm, labels, "implausible value " + std::to_string(*raw), now));
    } else {
      out.push_back(ValueSample(kFanRpm, labels, static_cast<double>(*raw), now));
    }
  }
  return vanished;
}

Status FanCollector::CollectInto(WallTime now, std::vector<Sample>& out) {
  files_.StartCollection();
  return internal::ScanAndReadEach(
      rescan_, scan_status_, out, [this] { return Scan(); }, fans_,
      [&](Fan& fan, std::vector<Sample>& samples) { return ReadFan(fan, now, samples); });
}

}  // namespace edgemond::collectors
