#include "collectors/emc_collector.h"

#include <fcntl.h>

#include <algorithm>

#include "collectors/internal/discovery.h"
#include "collectors/internal/samples.h"
#include "collectors/internal/sysfs_value.h"

namespace edgemond::collectors {
namespace {

using internal::MissingReasonFromStatus;
using internal::MissingSample;
using internal::ReadSysfsInt;
using internal::ValueSample;

constexpr MetricDesc kEmcFrequency{"edgemond_emc_frequency_hertz",
                                   "Clock of the external memory controller (DRAM)",
                                   MetricType::kGauge, "hertz"};
constexpr MetricDesc kEmcUtilization{
    "edgemond_emc_utilization_ratio",
    "Memory-controller activity relative to its clock, 0 to 1 (best effort: the activity "
    "counter's unit is undocumented)",
    MetricType::kGauge, "ratio"};

constexpr std::string_view kFrequencyPaths[] = {
    "/sys/kernel/debug/bpmp/debug/clk/emc/rate",
    "/sys/class/devfreq/bwmgr/cur_freq",
    "/sys/kernel/debug/clk/override.emc/clk_rate",
    "/sys/kernel/debug/clk/emc/clk_rate",
};
constexpr std::string_view kActivityPaths[] = {
    "/sys/kernel/debug/cactmon/mc_all",
    "/sys/kernel/debug/bpmp/debug/actmon/mc_all_avg_activity",
    "/sys/kernel/actmon_avg_activity/mc_all",
};

template <std::size_t N>
void Probe(const RootedFs& fs, const std::string_view (&paths)[N], std::optional<PolledFile>& file,
           bool& denied) {
  denied = false;
  for (std::string_view path : paths) {
    // An open tells apart "absent" (ENOENT, next candidate) from "there, but root only" (EACCES
    // on debugfs itself or on the file).
    auto fd = fs.OpenFile(path, O_RDONLY);
    if (fd.ok()) {
      if (!file || file->path() != path) file.emplace(fs, std::string(path));
      return;
    }
    denied |= fd.status().IsPermissionDenied();
  }
  file.reset();
}

}  // namespace

EmcCollector::EmcCollector(const RootedFs& fs, int rescan_every_ticks)
    : fs_(&fs), rescan_(rescan_every_ticks) {}

std::vector<const MetricDesc*> EmcCollector::Metrics() {
  return {&kEmcFrequency, &kEmcUtilization};
}

Status EmcCollector::Scan() {
  rescan_.Scanned();
  if (!internal::IsTegraBoard(*fs_)) {
    frequency_ = Source{};
    activity_ = Source{};
    return Status::NotFound("not an NVIDIA Tegra board: no EMC");
  }
  Probe(*fs_, kFrequencyPaths, frequency_.file, frequency_.denied);
  Probe(*fs_, kActivityPaths, activity_.file, activity_.denied);
  const auto usable = [](const Source& s) { return s.file.has_value() || s.denied; };
  if (!usable(frequency_) && !usable(activity_)) {
    return Status::NotFound("no EMC clock or activity file (is debugfs mounted?)");
  }
  return Status::Ok();
}

Status EmcCollector::CollectInto(WallTime now, std::vector<Sample>& out) {
  if (rescan_.StartTick() || rescan_next_tick_) scan_status_ = Scan();
  rescan_next_tick_ = false;
  if (!scan_status_.ok()) return scan_status_;
  const std::string needs_privilege(internal::kNeedsPrivilege);

  std::optional<std::int64_t> hz;
  std::string frequency_problem;
  if (frequency_.file) {
    auto raw = ReadSysfsInt(*frequency_.file, text_);
    if (raw.ok() && *raw > 0) {
      hz = *raw;
      out.push_back(ValueSample(kEmcFrequency, {}, static_cast<double>(*raw), now));
    } else {
      if (!raw.ok()) rescan_next_tick_ |= raw.status().IsNotFound();
      frequency_problem = raw.ok() ? "implausible value " + std::to_string(*raw)
                                   : MissingReasonFromStatus(raw.status());
      out.push_back(MissingSample(kEmcFrequency, {}, frequency_problem, now));
    }
  } else if (frequency_.denied) {
    frequency_problem = needs_privilege;
    out.push_back(MissingSample(kEmcFrequency, {}, needs_privilege, now));
  } else {
    frequency_problem = "no EMC clock file";
  }

  if (activity_.file) {
    auto raw = ReadSysfsInt(*activity_.file, text_);
    if (!raw.ok()) {
      rescan_next_tick_ |= raw.status().IsNotFound();
      out.push_back(MissingSample(kEmcUtilization, {}, MissingReasonFromStatus(raw.status()), now));
    } else if (*raw < 0) {
      out.push_back(
          MissingSample(kEmcUtilization, {}, "implausible value " + std::to_string(*raw), now));
    } else if (!hz) {
      out.push_back(MissingSample(kEmcUtilization, {}, "EMC clock: " + frequency_problem, now));
    } else {
      const double khz = static_cast<double>(*hz) / 1000.0;
      out.push_back(ValueSample(kEmcUtilization, {},
                                std::clamp(static_cast<double>(*raw) / khz, 0.0, 1.0), now));
    }
  } else if (activity_.denied) {
    out.push_back(MissingSample(kEmcUtilization, {}, needs_privilege, now));
  }
  return Status::Ok();
}

}  // namespace edgemond::collectors
