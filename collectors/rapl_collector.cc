#include "collectors/rapl_collector.h"

#include <algorithm>
#include <map>
#include <utility>

#include "collectors/internal/samples.h"
#include "collectors/internal/sysfs_value.h"
#include "core/text.h"

namespace edgemond::collectors {
namespace {

using internal::MissingReasonFromStatus;
using internal::MissingSample;
using internal::ValueSample;

constexpr MetricDesc kEnergy{
    "edgemond_energy_joules_total",
    "Energy counted by a power domain's hardware counter (RAPL), wrap-around removed",
    MetricType::kCounter, "joules"};
constexpr MetricDesc kDomainPower{
    "edgemond_power_domain_watts",
    "Average power of an energy-counting domain (RAPL package, core, dram, psys) over the last "
    "interval",
    MetricType::kGauge, "watts"};

constexpr std::string_view kPowercapDir = "/sys/class/powercap";
constexpr std::string_view kRaplZonePrefix = "intel-rapl:";
constexpr double kMicro = 1e-6;

std::string ReadName(const RootedFs& fs, const std::string& dir) {
  auto text = fs.ReadFile(dir + "/name", 4096);
  return text.ok() ? SanitizeUtf8(Trim(*text)) : std::string();
}

}  // namespace

RaplCollector::RaplCollector(const RootedFs& fs, const Clock& clock, int rescan_every_ticks)
    : fs_(&fs), clock_(&clock), rescan_(rescan_every_ticks) {}

std::vector<const MetricDesc*> RaplCollector::Metrics() { return {&kEnergy, &kDomainPower}; }

Status RaplCollector::Scan() {
  rescan_.Scanned();
  auto entries = fs_->ListDir(kPowercapDir);
  if (!entries.ok()) {
    zones_.clear();
    return entries.status();
  }
  // Zone entry ("intel-rapl:0:1") -> its name, for the parents of subzones.
  std::map<std::string, std::string> names;
  for (const std::string& entry : *entries) {
    if (StartsWith(entry, kRaplZonePrefix)) {
      names[entry] = ReadName(*fs_, std::string(kPowercapDir) + "/" + entry);
    }
  }
  std::vector<Zone> zones;
  for (const auto& [entry, zone_name] : names) {
    auto dir = fs_->RealPath(std::string(kPowercapDir) + "/" + entry);
    if (!dir.ok() || !fs_->Exists(*dir + "/energy_uj")) continue;
    std::string domain = zone_name.empty() ? entry : zone_name;
    // "intel-rapl:0:1" is a subzone of "intel-rapl:0".
    const std::string_view id = std::string_view(entry).substr(kRaplZonePrefix.size());
    if (const std::size_t colon = id.rfind(':'); colon != std::string_view::npos) {
      const std::string parent = std::string(kRaplZonePrefix) + std::string(id.substr(0, colon));
      const auto it = names.find(parent);
      domain = (it == names.end() || it->second.empty() ? parent : it->second) + "/" + domain;
    }
    std::uint64_t max_range = 0;
    if (auto text = fs_->ReadFile(*dir + "/max_energy_range_uj", 4096); text.ok()) {
      if (auto value = ParseUint64(Trim(*text)); value.ok()) max_range = *value;
    }
    const auto old = std::find_if(zones_.begin(), zones_.end(),
                                  [&](const Zone& zone) { return zone.dir == *dir; });
    if (old != zones_.end()) {
      old->max_range_microjoules = max_range;
      old->labels = Labels{{"domain", domain}};
      zones.push_back(std::move(*old));
      continue;
    }
    zones.push_back(Zone{.dir = *dir,
                         .labels = Labels{{"domain", domain}},
                         .energy = PolledFile(*fs_, *dir + "/energy_uj"),
                         .max_range_microjoules = max_range,
                         .counter = {},
                         .previous_read = std::nullopt});
  }
  zones_ = std::move(zones);
  if (zones_.empty()) return Status::NotFound("no RAPL zones under /sys/class/powercap");
  return Status::Ok();
}

bool RaplCollector::ReadZone(Zone& zone, SteadyTime steady_now, WallTime now,
                             std::vector<Sample>& out) {
  Status status = zone.energy.ReadInto(text_);
  Result<std::uint64_t> raw =
      status.ok() ? ParseUint64(Trim(text_)) : Result<std::uint64_t>(status);
  if (status.ok() && Trim(text_).empty()) raw = Status::Unavailable("empty file");
  if (!raw.ok()) {
    const std::string reason = MissingReasonFromStatus(raw.status());
    out.push_back(MissingSample(kEnergy, zone.labels, reason, now));
    out.push_back(MissingSample(kDomainPower, zone.labels, reason, now));
    // A glitch keeps the last good reading: the counter is cumulative, so the next interval
    // spans the gap correctly. A zone that went away may come back with a reset counter.
    const bool vanished = raw.status().IsNotFound();
    if (vanished) {
      zone.counter.Reset();
      zone.previous_read.reset();
    }
    return vanished;
  }
  const std::optional<std::uint64_t> delta = zone.counter.Update(*raw, zone.max_range_microjoules);
  out.push_back(ValueSample(kEnergy, zone.labels,
                            static_cast<double>(zone.counter.total_microjoules()) * kMicro, now));
  const std::optional<SteadyTime> previous = zone.previous_read;
  zone.previous_read = steady_now;
  if (!delta || !previous) {
    out.push_back(MissingSample(kDomainPower, zone.labels, "first sample", now));
  } else if (steady_now <= *previous) {
    out.push_back(MissingSample(kDomainPower, zone.labels, "no time elapsed", now));
  } else {
    const double seconds = std::chrono::duration<double>(steady_now - *previous).count();
    out.push_back(ValueSample(kDomainPower, zone.labels,
                              static_cast<double>(*delta) * kMicro / seconds, now));
  }
  return false;
}

Status RaplCollector::CollectInto(WallTime now, std::vector<Sample>& out) {
  // A zone that vanished is looked for again at the next tick, not within this one: reading the
  // counters twice in a tick would give an interval of no time.
  if (rescan_.StartTick() || rescan_next_tick_) scan_status_ = Scan();
  rescan_next_tick_ = false;
  if (!scan_status_.ok()) return scan_status_;
  const SteadyTime steady_now = clock_->Now();
  for (Zone& zone : zones_) rescan_next_tick_ |= ReadZone(zone, steady_now, now, out);
  return Status::Ok();
}

}  // namespace edgemond::collectors
