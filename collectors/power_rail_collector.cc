#include "collectors/power_rail_collector.h"

#include <algorithm>
#include <utility>

#include "collectors/internal/discovery.h"
#include "collectors/internal/jetson_parse.h"
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

constexpr MetricDesc kInputWatts{
    "edgemond_power_input_watts",
    "Power the module draws at its input rail (VDD_IN, POM_5V_IN): the board total, which the "
    "other rails are part of",
    MetricType::kGauge, "watts"};
constexpr MetricDesc kInputVolts{"edgemond_power_input_volts", "Voltage at the module's input rail",
                                 MetricType::kGauge, "volts"};
constexpr MetricDesc kInputAmperes{"edgemond_power_input_amperes",
                                   "Current through the module's input rail", MetricType::kGauge,
                                   "amperes"};
constexpr MetricDesc kRailWatts{"edgemond_power_rail_watts",
                                "Power drawn through a monitored supply rail (input rail excluded)",
                                MetricType::kGauge, "watts"};
constexpr MetricDesc kRailVolts{"edgemond_power_rail_volts",
                                "Bus voltage of a monitored supply rail", MetricType::kGauge,
                                "volts"};
constexpr MetricDesc kRailAmperes{"edgemond_power_rail_amperes",
                                  "Current through a monitored supply rail", MetricType::kGauge,
                                  "amperes"};
constexpr MetricDesc kRailCurrentLimit{
    "edgemond_power_rail_current_limit_amperes",
    "Current alert limit of a rail's monitor: level=warning compares the average, critical the "
    "instantaneous current",
    MetricType::kGauge, "amperes"};

constexpr int kChannels = 3;

bool IsNotConnected(std::string_view label) { return label == "NC" || label == "nc"; }

// A limit file's value in amperes: hwmon prints plain mA, ina3221x "<n> ma".
std::optional<double> ReadLimitAmperes(const RootedFs& fs, const std::string& path,
                                       bool with_unit) {
  auto text = fs.ReadFile(path, 4096);
  if (!text.ok()) return std::nullopt;
  auto milliamps =
      with_unit ? internal::ParseValueWithUnit(*text, "ma") : internal::ParseSysfsInt(*text);
  if (!milliamps.ok() || *milliamps < 0) return std::nullopt;
  return static_cast<double>(*milliamps) / 1000.0;
}

std::string ReadLabel(const RootedFs& fs, const std::string& path) {
  auto text = fs.ReadFile(path, 4096);
  return text.ok() ? SanitizeUtf8(Trim(*text)) : std::string();
}

}  // namespace

PowerRailCollector::PowerRailCollector(const RootedFs& fs, internal::TickFiles* shared_files,
                                       int rescan_every_ticks)
    : fs_(&fs), rescan_(rescan_every_ticks), files_(fs, shared_files) {}

std::vector<const MetricDesc*> PowerRailCollector::Metrics() {
  return {&kInputWatts, &kInputVolts,  &kInputAmperes,    &kRailWatts,
          &kRailVolts,  &kRailAmperes, &kRailCurrentLimit};
}

bool PowerRailCollector::IsInputRail(std::string_view rail) {
  return rail == "VDD_IN" || rail == "POM_5V_IN";
}

void PowerRailCollector::FindHwmonRails(std::vector<Rail>& rails) {
  auto chips = internal::ListHwmonChips(*fs_);
  if (!chips.ok()) return;
  for (const internal::HwmonChip& chip : *chips) {
    if (chip.name != "ina3221") continue;
    for (int channel = 1; channel <= kChannels; ++channel) {
      const std::string base = chip.attr_dir + "/";
      const std::string in = "in" + std::to_string(channel);
      const std::string curr = "curr" + std::to_string(channel);
      if (!fs_->Exists(base + in + "_input") || !fs_->Exists(base + curr + "_input")) continue;
      if (auto enable = fs_->ReadFile(base + in + "_enable", 64); enable.ok()) {
        if (auto on = internal::ParseSysfsInt(*enable); on.ok() && *on == 0) continue;
      }
      std::string label = ReadLabel(*fs_, base + in + "_label");
      if (IsNotConnected(label)) continue;
      if (label.empty()) label = chip.id + "/" + in;
      rails.push_back(Rail{
          .name = std::move(label),
          .input = false,
          .millivolts = files_.Open(base + in + "_input"),
          .milliamps = files_.Open(base + curr + "_input"),
          .milliwatts = std::nullopt,
          .warning_amperes = ReadLimitAmperes(*fs_, base + curr + "_max", false),
          .critical_amperes = ReadLimitAmperes(*fs_, base + curr + "_crit", false),
          .labels = {},
          .warning_labels = {},
          .critical_labels = {},
      });
    }
  }
}

void PowerRailCollector::FindIioRails(std::vector<Rail>& rails) {
  auto devices = fs_->ListDir("/sys/bus/i2c/devices");
  if (!devices.ok()) return;
  for (const std::string& device : *devices) {
    const std::string dir = "/sys/bus/i2c/devices/" + device;
    auto name = fs_->ReadFile(dir + "/name", 4096);
    if (!name.ok() || Trim(*name) != "ina3221x") continue;
    auto entries = fs_->ListDir(dir);
    if (!entries.ok()) continue;
    for (const std::string& entry : *entries) {
      if (!StartsWith(entry, "iio:device") && entry != "iio_device") continue;
      const std::string iio = dir + "/" + entry + "/";
      for (int k = 0; k < kChannels; ++k) {
        const std::string n = std::to_string(k);
        if (!fs_->Exists(iio + "in_voltage" + n + "_input")) continue;
        std::string label = ReadLabel(*fs_, iio + "rail_name_" + n);
        if (IsNotConnected(label)) continue;
        if (label.empty()) label = "i2c/" + device + "/" + n;
        Rail rail{
            .name = std::move(label),
            .input = false,
            .millivolts = files_.Open(iio + "in_voltage" + n + "_input"),
            .milliamps = files_.Open(iio + "in_current" + n + "_input"),
            .milliwatts = std::nullopt,
            .warning_amperes = ReadLimitAmperes(*fs_, iio + "warn_current_limit_" + n, true),
            .critical_amperes = ReadLimitAmperes(*fs_, iio + "crit_current_limit_" + n, true),
            .labels = {},
            .warning_labels = {},
            .critical_labels = {},
        };
        if (fs_->Exists(iio + "in_power" + n + "_input")) {
          rail.milliwatts = files_.Open(iio + "in_power" + n + "_input");
        }
        rails.push_back(std::move(rail));
      }
    }
  }
}

Status PowerRailCollector::Scan() {
  internal::ReusableFiles old(files_);
  for (Rail& rail : rails_) {
    old.Keep(std::move(rail.millivolts));
    old.Keep(std::move(rail.milliamps));
    if (rail.milliwatts) old.Keep(std::move(*rail.milliwatts));
  }
  std::vector<Rail> rails;
  FindHwmonRails(rails);
  FindIioRails(rails);
  std::vector<std::string> names;
  for (const Rail& rail : rails) names.push_back(rail.name);
  names = internal::MakeUnique(names);
  bool have_input = false;
  for (std::size_t i = 0; i < rails.size(); ++i) {
    Rail& rail = rails[i];
    rail.name = std::move(names[i]);
    // Only one input: a second chip labelling a rail VDD_IN would be a board description bug.
    rail.input = !have_input && IsInputRail(rail.name);
    have_input |= rail.input;
    rail.labels = rail.input ? Labels{} : Labels{{"rail", rail.name}};
    rail.warning_labels = Labels{{"rail", rail.name}, {"level", "warning"}};
    rail.critical_labels = Labels{{"rail", rail.name}, {"level", "critical"}};
    rail.millivolts = old.Take(rail.millivolts.path());
    rail.milliamps = old.Take(rail.milliamps.path());
    if (rail.milliwatts) rail.milliwatts = old.Take(rail.milliwatts->path());
  }
  rails_ = std::move(rails);
  if (rails_.empty()) return Status::NotFound("no INA3221 power monitor");
  return Status::Ok();
}

bool PowerRailCollector::ReadRail(Rail& rail, WallTime now, std::vector<Sample>& out) {
  bool vanished = false;
  const MetricDesc& watts_desc = rail.input ? kInputWatts : kRailWatts;
  const MetricDesc& volts_desc = rail.input ? kInputVolts : kRailVolts;
  const MetricDesc& amperes_desc = rail.input ? kInputAmperes : kRailAmperes;
  const SeriesLabels& labels = rail.labels;

  const auto read = [&](internal::TickFile& file, const MetricDesc& desc) -> Result<double> {
    auto raw = ReadSysfsInt(file, text_);
    if (!raw.ok()) {
      vanished |= raw.status().IsNotFound();
      out.push_back(MissingSample(desc, labels, MissingReasonFromStatus(raw.status()), now));
      return raw.status();
    }
    const double value = static_cast<double>(*raw) / 1000.0;
    out.push_back(ValueSample(desc, labels, value, now));
    return value;
  };
  const Result<double> volts = read(rail.millivolts, volts_desc);
  const Result<double> amperes = read(rail.milliamps, amperes_desc);
  if (rail.milliwatts) {
    (void)read(*rail.milliwatts, watts_desc);  // Its samples are all it yields.
  } else if (!volts.ok()) {
    out.push_back(MissingSample(watts_desc, labels, MissingReasonFromStatus(volts.status()), now));
  } else if (!amperes.ok()) {
    out.push_back(
        MissingSample(watts_desc, labels, MissingReasonFromStatus(amperes.status()), now));
  } else {
    out.push_back(ValueSample(watts_desc, labels, *volts * *amperes, now));
  }
  if (rail.warning_amperes) {
    out.push_back(ValueSample(kRailCurrentLimit, rail.warning_labels, *rail.warning_amperes, now));
  }
  if (rail.critical_amperes) {
    out.push_back(
        ValueSample(kRailCurrentLimit, rail.critical_labels, *rail.critical_amperes, now));
  }
  return vanished;
}

Status PowerRailCollector::CollectInto(WallTime now, std::vector<Sample>& out) {
  files_.StartCollection();
  return internal::ScanAndReadEach(
      rescan_, scan_status_, out, [this] { return Scan(); }, rails_,
      [&](Rail& rail, std::vector<Sample>& samples) { return ReadRail(rail, now, samples); });
}

}  // namespace edgemond::collectors
