#include "collectors/throttle_collector.h"

#include <utility>

#include "collectors/internal/discovery.h"
#include "collectors/internal/names.h"
#include "collectors/internal/samples.h"
#include "collectors/internal/sysfs_value.h"
#include "collectors/internal/throttle.h"
#include "core/text.h"

namespace edgemond::collectors {
namespace {

using internal::kReasonFrequencyCap;
using internal::kReasonThermal;
using internal::kReasonUnderVoltage;
using internal::MissingReasonFromStatus;
using internal::MissingSample;
using internal::ReadSysfsInt;
using internal::ThrottledSample;
using internal::ThrottleLabels;

constexpr std::string_view kCpu = "cpu";
constexpr std::string_view kBoard = "board";
constexpr std::string_view kThermalDir = "/sys/class/thermal";

bool IsCpufreqCoolingDevice(std::string_view type) {
  return StartsWith(type, "cpufreq-") || StartsWith(type, "thermal-cpufreq-");
}

}  // namespace

ThrottleCollector::ThrottleCollector(const RootedFs& fs, internal::TickFiles* shared_files,
                                     int rescan_every_ticks)
    : fs_(&fs),
      rescan_(rescan_every_ticks),
      files_(fs, shared_files),
      cpu_cap_labels_(ThrottleLabels(kCpu, kReasonFrequencyCap)),
      cpu_thermal_labels_(ThrottleLabels(kCpu, kReasonThermal)),
      under_voltage_labels_(ThrottleLabels(kBoard, kReasonUnderVoltage)) {}

std::vector<const MetricDesc*> ThrottleCollector::Metrics() { return {&internal::kThrottled}; }

Status ThrottleCollector::Scan() {
  rescan_.Scanned();
  internal::ReusableFiles old_limits(files_);
  for (Policy& policy : policies_) {
    old_limits.Keep(std::move(policy.affected_cpus));
    old_limits.Keep(std::move(policy.scaling_max));
  }
  internal::ReusableFiles old(*fs_);
  for (PolledFile& file : cooling_states_) old.Keep(std::move(file));
  if (under_voltage_alarm_) old.Keep(std::move(*under_voltage_alarm_));
  policies_.clear();
  cooling_states_.clear();
  under_voltage_alarm_.reset();

  for (const std::string& dir : internal::CpufreqPolicyDirs(*fs_)) {
    auto text = fs_->ReadFile(dir + "cpuinfo_max_freq", 64);
    auto khz = text.ok() ? internal::ParseSysfsInt(*text) : Result<std::int64_t>(text.status());
    if (!khz.ok() || *khz <= 0) continue;
    policies_.push_back(Policy{old_limits.Take(dir + "affected_cpus"),
                               old_limits.Take(dir + "scaling_max_freq"), *khz});
  }
  if (auto entries = fs_->ListDir(kThermalDir); entries.ok()) {
    for (const std::string& entry : *entries) {
      if (internal::IndexedName(entry, "cooling_device") < 0) continue;
      const std::string dir = std::string(kThermalDir) + "/" + entry + "/";
      auto type = fs_->ReadFile(dir + "type", 4096);
      if (type.ok() && IsCpufreqCoolingDevice(Trim(*type))) {
        cooling_states_.push_back(old.Take(dir + "cur_state"));
      }
    }
  }
  if (auto chips = internal::ListHwmonChips(*fs_); chips.ok()) {
    for (const internal::HwmonChip& chip : *chips) {
      const std::string alarm = chip.attr_dir + "/in0_lcrit_alarm";
      if (chip.name == "rpi_volt" && fs_->Exists(alarm)) {
        under_voltage_alarm_ = old.Take(alarm);
        break;
      }
    }
  }
  if (policies_.empty() && cooling_states_.empty() && !under_voltage_alarm_) {
    return Status::NotFound("no cpufreq limits, cpufreq cooling devices or under-voltage alarm");
  }
  return Status::Ok();
}

void ThrottleCollector::CollectCpuCap(WallTime now, std::vector<Sample>& out) {
  if (policies_.empty()) return;
  bool capped = false;
  bool checked = false;
  Status error;
  for (Policy& policy : policies_) {
    // A cluster whose CPUs are all offline has no active limit (its reads fail with EBUSY).
    if (Status status = policy.affected_cpus.ReadInto(text_); !status.ok() || Trim(text_).empty()) {
      rescan_next_tick_ |= status.IsNotFound();
      continue;
    }
    auto khz = ReadSysfsInt(policy.scaling_max, text_);
    if (!khz.ok()) {
      rescan_next_tick_ |= khz.status().IsNotFound();
      error = khz.status();
      continue;
    }
    checked = true;
    capped |= *khz < policy.hardware_max_khz;
  }
  if (checked) {
    // One capped cluster is enough to say the CPU is held down, whatever another cluster says.
    out.push_back(ThrottledSample(cpu_cap_labels_, capped, now));
  } else if (!error.ok()) {
    out.push_back(
        MissingSample(internal::kThrottled, cpu_cap_labels_, MissingReasonFromStatus(error), now));
  }
}

void ThrottleCollector::CollectCpuThermal(WallTime now, std::vector<Sample>& out) {
  if (cooling_states_.empty()) return;
  bool cooling = false;
  bool checked = false;
  Status error;
  for (PolledFile& state : cooling_states_) {
    auto value = ReadSysfsInt(state, text_);
    if (!value.ok()) {
      rescan_next_tick_ |= value.status().IsNotFound();
      error = value.status();
      continue;
    }
    checked = true;
    cooling |= *value > 0;
  }
  if (checked) {
    out.push_back(ThrottledSample(cpu_thermal_labels_, cooling, now));
  } else {
    out.push_back(MissingSample(internal::kThrottled, cpu_thermal_labels_,
                                MissingReasonFromStatus(error), now));
  }
}

void ThrottleCollector::CollectUnderVoltage(WallTime now, std::vector<Sample>& out) {
  if (!under_voltage_alarm_) return;
  auto alarm = ReadSysfsInt(*under_voltage_alarm_, text_);
  if (alarm.ok()) {
    out.push_back(ThrottledSample(under_voltage_labels_, *alarm != 0, now));
  } else {
    rescan_next_tick_ |= alarm.status().IsNotFound();
    out.push_back(MissingSample(internal::kThrottled, under_voltage_labels_,
                                MissingReasonFromStatus(alarm.status()), now));
  }
}

Status ThrottleCollector::CollectInto(WallTime now, std::vector<Sample>& out) {
  files_.StartCollection();
  if (rescan_.StartTick() || rescan_next_tick_) scan_status_ = Scan();
  rescan_next_tick_ = false;
  if (!scan_status_.ok()) return scan_status_;
  CollectCpuCap(now, out);
  CollectCpuThermal(now, out);
  CollectUnderVoltage(now, out);
  return Status::Ok();
}

}  // namespace edgemond::collectors
