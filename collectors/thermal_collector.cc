#include "collectors/thermal_collector.h"

#include <algorithm>
#include <utility>

#include "collectors/internal/names.h"
#include "collectors/internal/samples.h"
#include "collectors/internal/sysfs_value.h"
#include "collectors/internal/thermal_parse.h"
#include "core/text.h"

namespace edgemond::collectors {
namespace {

using internal::MissingSample;
using internal::ValueSample;

constexpr MetricDesc kZoneCelsius{"edgemond_thermal_zone_celsius", "Temperature of a thermal zone",
                                  MetricType::kGauge, "celsius"};
constexpr MetricDesc kTripCelsius{
    "edgemond_thermal_zone_trip_celsius",
    "Temperature of a passive, hot or critical trip point of a thermal zone", MetricType::kGauge,
    "celsius"};

constexpr std::string_view kClassDir = "/sys/class/thermal";
constexpr std::string_view kThermalZonePrefix = "thermal_zone";

struct FoundZone {
  int index;
  std::string dir;  // Device path with links resolved, so a reopened fd is the same zone.
  std::string type;
};

}  // namespace

ThermalCollector::ThermalCollector(const RootedFs& fs, internal::TickFiles* shared_files,
                                   int rescan_every_ticks)
    : fs_(&fs), rescan_(rescan_every_ticks), files_(fs, shared_files) {}

std::vector<const MetricDesc*> ThermalCollector::Metrics() {
  return {&kZoneCelsius, &kTripCelsius};
}

Status ThermalCollector::Scan() {
  auto entries = fs_->ListDir(kClassDir);
  if (!entries.ok()) {
    zones_.clear();
    return entries.status();
  }
  std::vector<FoundZone> found;
  for (const std::string& entry : *entries) {
    const int index = internal::IndexedName(entry, kThermalZonePrefix);
    if (index < 0) continue;
    const std::string class_path = std::string(kClassDir) + "/" + entry;
    auto dir = fs_->RealPath(class_path);
    FoundZone zone{index, dir.ok() ? *dir : class_path, ""};
    if (auto type = fs_->ReadFile(zone.dir + "/type"); type.ok()) {
      zone.type = SanitizeUtf8(Trim(*type));
    }
    if (zone.type.empty()) zone.type = entry;  // No type: the directory name is all we have.
    found.push_back(std::move(zone));
  }
  std::sort(found.begin(), found.end(),
            [](const FoundZone& a, const FoundZone& b) { return a.index < b.index; });
  std::vector<std::string> types;
  types.reserve(found.size());
  for (const FoundZone& zone : found) types.push_back(zone.type);
  const std::vector<std::string> names = internal::MakeUnique(types);

  std::vector<Zone> zones;
  zones.reserve(found.size());
  for (std::size_t i = 0; i < found.size(); ++i) {
    const FoundZone& f = found[i];
    const std::string temp_path = f.dir + "/temp";
    // A zone we already had keeps its open fd: the old zone still holds it.
    Zone zone{.labels = {{"zone", names[i]}, {"type", f.type}},
              .temp = files_.Open(temp_path),
              .mode = std::nullopt,
              .trips = {},
              .placeholder = internal::IsPlaceholderZone(f.type)};
    if (fs_->Exists(f.dir + "/mode")) zone.mode.emplace(*fs_, f.dir + "/mode");
    auto files = fs_->ListDir(f.dir);
    if (files.ok()) {
      for (const std::string& file : *files) {
        const int trip = internal::TripIndexFromTypeFile(file);
        if (trip < 0) continue;
        const std::string stem = f.dir + "/trip_point_" + std::to_string(trip);
        auto type_text = fs_->ReadFile(stem + "_type");
        auto temp_text = fs_->ReadFile(stem + "_temp");
        if (!type_text.ok() || !temp_text.ok()) continue;
        const internal::TripType trip_type = internal::ParseTripType(*type_text);
        auto millicelsius = internal::ParseSysfsInt(*temp_text);
        if (!millicelsius.ok() || !internal::IsExportedTrip(trip_type, *millicelsius)) continue;
        zone.trips.push_back(
            Trip{.index = trip,
                 .labels = {{"zone", names[i]},
                            {"type", f.type},
                            {"trip", std::to_string(trip)},
                            {"trip_type", std::string(internal::TripTypeName(trip_type))}},
                 .celsius = static_cast<double>(*millicelsius) / 1000.0});
      }
      std::sort(zone.trips.begin(), zone.trips.end(),
                [](const Trip& a, const Trip& b) { return a.index < b.index; });
    }
    zones.push_back(std::move(zone));
  }
  zones_ = std::move(zones);
  if (zones_.empty()) return Status::NotFound("no thermal zones under /sys/class/thermal");
  return Status::Ok();
}

bool ThermalCollector::ReadZones(WallTime now, std::vector<Sample>& out) {
  bool vanished = false;
  for (Zone& zone : zones_) {
    if (zone.placeholder) {
      out.push_back(
          MissingSample(kZoneCelsius, zone.labels, std::string(internal::kPlaceholderReason), now));
    } else if (zone.mode && zone.mode->ReadInto(text_).ok() && !internal::ZoneEnabled(text_)) {
      out.push_back(MissingSample(kZoneCelsius, zone.labels, "disabled", now));
    } else if (Status status = zone.temp.ReadInto(text_); !status.ok()) {
      vanished |= status.IsNotFound();
      out.push_back(
          MissingSample(kZoneCelsius, zone.labels, internal::MissingReasonFromStatus(status), now));
    } else if (auto millicelsius = internal::ParseSysfsInt(text_); !millicelsius.ok()) {
      out.push_back(MissingSample(kZoneCelsius, zone.labels,
                                  internal::MissingReasonFromStatus(millicelsius.status()), now));
    } else if (auto problem = internal::ZoneTemperatureProblem(*millicelsius)) {
      out.push_back(MissingSample(kZoneCelsius, zone.labels, std::move(*problem), now));
    } else {
      out.push_back(
          ValueSample(kZoneCelsius, zone.labels, static_cast<double>(*millicelsius) / 1000.0, now));
    }
    for (const Trip& trip : zone.trips) {
      out.push_back(ValueSample(kTripCelsius, trip.labels, trip.celsius, now));
    }
  }
  return vanished;
}

Status ThermalCollector::CollectInto(WallTime now, std::vector<Sample>& out) {
  files_.StartCollection();
  return internal::ScanAndRead(
      rescan_, scan_status_, out, [this] { return Scan(); },
      [&](std::vector<Sample>& samples) { return ReadZones(now, samples); });
}

}  // namespace edgemond::collectors
