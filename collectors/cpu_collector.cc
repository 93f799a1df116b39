#include "collectors/cpu_collector.h"

#include <algorithm>
#include <utility>

#include "collectors/internal/samples.h"
#include "collectors/internal/sysfs_value.h"
#include "core/text.h"

namespace edgemond::collectors {
namespace {

using internal::CpuTimes;
using internal::MissingSample;
using internal::ValueSample;

constexpr MetricDesc kUtilization{
    "edgemond_cpu_utilization_ratio",
    "Share of the last interval the CPU was busy (not idle or waiting for I/O), 0 to 1; "
    "cpu=\"all\" is the whole machine",
    MetricType::kGauge, "ratio"};
constexpr MetricDesc kFrequency{"edgemond_cpu_frequency_hertz",
                                "Current CPU clock frequency as known to cpufreq",
                                MetricType::kGauge, "hertz"};
constexpr MetricDesc kFrequencyMin{"edgemond_cpu_frequency_min_hertz",
                                   "Lowest frequency cpufreq may currently choose",
                                   MetricType::kGauge, "hertz"};
constexpr MetricDesc kFrequencyMax{
    "edgemond_cpu_frequency_max_hertz",
    "Highest frequency cpufreq may currently choose (power mode, thermal and user limits)",
    MetricType::kGauge, "hertz"};
constexpr MetricDesc kFrequencyHardwareMax{"edgemond_cpu_frequency_hardware_max_hertz",
                                           "Highest frequency the CPU supports", MetricType::kGauge,
                                           "hertz"};
constexpr MetricDesc kGovernorInfo{"edgemond_cpu_governor_info",
                                   "The cpufreq governor in use, as a label; the value is always 1",
                                   MetricType::kGauge, ""};

constexpr std::string_view kProcStat = "/proc/stat";
constexpr std::string_view kCpuDir = "/sys/devices/system/cpu";

constexpr std::string_view kFirstSample = "first sample";
constexpr std::string_view kOffline = "offline";
constexpr std::string_view kNoTicks = "no ticks elapsed";

std::uint64_t Delta(std::uint64_t now, std::uint64_t before) {
  return now > before ? now - before : 0;  // Some columns go backwards; never wrap.
}

struct Interval {
  std::uint64_t busy = 0;
  std::uint64_t total = 0;
};

Interval Between(const CpuTimes& before, const CpuTimes& now) {
  const std::uint64_t idle =
      Delta(now.idle_ticks, before.idle_ticks) + Delta(now.iowait_ticks, before.iowait_ticks);
  const std::uint64_t busy =
      Delta(now.user_ticks, before.user_ticks) + Delta(now.nice_ticks, before.nice_ticks) +
      Delta(now.system_ticks, before.system_ticks) + Delta(now.irq_ticks, before.irq_ticks) +
      Delta(now.softirq_ticks, before.softirq_ticks) + Delta(now.steal_ticks, before.steal_ticks);
  return Interval{busy, busy + idle};
}

std::string CoreDir(int cpu) { return std::string(kCpuDir) + "/cpu" + std::to_string(cpu); }

Result<std::int64_t> ReadInt(internal::TickFile& file, std::string& buffer) {
  EDGEMOND_RETURN_IF_ERROR(file.ReadInto(buffer));
  return internal::ParseSysfsInt(buffer);
}

std::string ReasonOf(const Status& status) { return internal::MissingReasonFromStatus(status); }

}  // namespace

CpuCollector::CpuCollector(const RootedFs& fs, internal::TickFiles* shared_files,
                           int rescan_every_ticks)
    : fs_(&fs),
      rescan_(rescan_every_ticks),
      files_(fs, shared_files),
      stat_file_(fs, std::string(kProcStat)),
      present_file_(fs, std::string(kCpuDir) + "/present"),
      online_file_(fs, std::string(kCpuDir) + "/online") {}

std::vector<const MetricDesc*> CpuCollector::Metrics() {
  return {&kUtilization,          &kFrequency,   &kFrequencyMin, &kFrequencyMax,
          &kFrequencyHardwareMax, &kGovernorInfo};
}

void CpuCollector::RebuildCores(const std::vector<int>& present) {
  std::vector<Core> cores;
  cores.reserve(present.size());
  for (const int cpu : present) {
    const auto old = std::find_if(cores_.begin(), cores_.end(),
                                  [cpu](const Core& core) { return core.cpu == cpu; });
    if (old != cores_.end()) {
      cores.push_back(std::move(*old));
      continue;
    }
    Core core;
    core.cpu = cpu;
    core.label = std::to_string(cpu);
    core.labels = Labels{{"cpu", core.label}};
    const std::string online_path = CoreDir(cpu) + "/online";
    if (fs_->Exists(online_path)) core.online_file.emplace(*fs_, online_path);
    cores.push_back(std::move(core));
  }
  cores_ = std::move(cores);
}

void CpuCollector::ResolvePolicies() {
  std::vector<Policy> policies;
  has_cpufreq_ = false;
  for (Core& core : cores_) {
    core.policy = -1;
    auto path = fs_->RealPath(CoreDir(core.cpu) + "/cpufreq");
    if (!path.ok()) continue;  // No cpufreq (VM), or an offline core that lost its link.
    has_cpufreq_ = true;
    const auto same = std::find_if(policies.begin(), policies.end(),
                                   [&](const Policy& p) { return p.path == *path; });
    if (same != policies.end()) {
      core.policy = static_cast<int>(same - policies.begin());
      continue;
    }
    // Keep the open files of a policy we already had.
    const auto old = std::find_if(policies_.begin(), policies_.end(),
                                  [&](const Policy& p) { return p.path == *path; });
    if (old != policies_.end()) {
      policies.push_back(std::move(*old));
    } else {
      const std::string& dir = *path;
      policies.push_back(Policy{.path = dir,
                                .cur_khz = files_.Open(dir + "/scaling_cur_freq"),
                                .min_khz = files_.Open(dir + "/scaling_min_freq"),
                                .max_khz = files_.Open(dir + "/scaling_max_freq"),
                                .governor = files_.Open(dir + "/scaling_governor")});
    }
    Policy& policy = policies.back();
    // The hardware limit never changes while the policy exists; read it once per scan.
    auto text = fs_->ReadFile(policy.path + "/cpuinfo_max_freq");
    policy.hardware_max_khz =
        text.ok() ? internal::ParseSysfsInt(*text) : Result<std::int64_t>(text.status());
    policy.read_at_tick = 0;
    core.policy = static_cast<int>(policies.size() - 1);
  }
  policies_ = std::move(policies);
}

void CpuCollector::ReadPolicy(Policy& policy) {
  if (policy.read_at_tick == rescan_.tick()) return;
  policy.read_at_tick = rescan_.tick();
  policy.cur = ReadInt(policy.cur_khz, text_);
  policy.min = ReadInt(policy.min_khz, text_);
  policy.max = ReadInt(policy.max_khz, text_);
  if (Status status = policy.governor.ReadInto(text_); status.ok()) {
    policy.governor_name = SanitizeUtf8(Trim(text_));
  } else {
    policy.governor_name = status;
  }
}

bool CpuCollector::ReadOnline(Core& core, const std::vector<int>* online_list) {
  if (online_list != nullptr) {
    return std::binary_search(online_list->begin(), online_list->end(), core.cpu);
  }
  if (!core.online_file) return true;  // Cannot be unplugged.
  if (!core.online_file->ReadInto(text_).ok()) return true;
  return Trim(text_) != "0";
}

void CpuCollector::EmitFrequency(Core& core, WallTime now, std::vector<Sample>& out) {
  if (!core.online) {
    if (has_cpufreq_) {
      out.push_back(MissingSample(kFrequency, core.labels, std::string(kOffline), now));
    }
    return;
  }
  if (core.policy < 0) return;
  Policy& policy = policies_[static_cast<std::size_t>(core.policy)];
  ReadPolicy(policy);
  const auto emit_khz = [&](const MetricDesc& desc, const Result<std::int64_t>& khz) {
    if (khz.ok()) {
      out.push_back(ValueSample(desc, core.labels, static_cast<double>(*khz) * 1000.0, now));
    } else {
      out.push_back(MissingSample(desc, core.labels, ReasonOf(khz.status()), now));
    }
  };
  emit_khz(kFrequency, policy.cur);
  emit_khz(kFrequencyMin, policy.min);
  emit_khz(kFrequencyMax, policy.max);
  emit_khz(kFrequencyHardwareMax, policy.hardware_max_khz);
  if (policy.governor_name.ok() && !policy.governor_name->empty()) {
    if (core.governor_labels.empty() || core.governor != *policy.governor_name) {
      core.governor = *policy.governor_name;
      core.governor_labels = Labels{{"cpu", core.label}, {"governor", core.governor}};
    }
    out.push_back(ValueSample(kGovernorInfo, core.governor_labels, 1.0, now));
  }
}

Status CpuCollector::CollectInto(WallTime now, std::vector<Sample>& out) {
  const bool rescan_due = rescan_.StartTick();
  files_.StartCollection();
  EDGEMOND_RETURN_IF_ERROR(stat_file_.ReadInto(text_));
  EDGEMOND_RETURN_IF_ERROR(internal::ParseProcStat(text_, times_).WithContext("/proc/stat"));

  // The cores that exist. Without a readable `present` list, the cores /proc/stat shows will do.
  bool present_ok = false;
  if (present_file_.ReadInto(text_).ok()) {
    present_ok = ParseCpuListInto(text_, present_).ok() && !present_.empty();
  }
  if (!present_ok) {
    present_.clear();
    for (const CpuTimes& t : times_) {
      if (t.cpu != CpuTimes::kAggregate) present_.push_back(t.cpu);
    }
  }
  std::sort(present_.begin(), present_.end());

  const std::vector<int>* online_list = nullptr;
  if (online_file_.ReadInto(text_).ok() && ParseCpuListInto(text_, online_).ok()) {
    std::sort(online_.begin(), online_.end());
    online_list = &online_;
  }

  bool topology_changed = cores_.size() != present_.size();
  for (std::size_t i = 0; !topology_changed && i < cores_.size(); ++i) {
    topology_changed = cores_[i].cpu != present_[i];
  }
  if (topology_changed) RebuildCores(present_);

  bool online_changed = false;
  for (Core& core : cores_) {
    const bool online = ReadOnline(core, online_list);
    if (online != core.online) {
      online_changed = true;
      core.online = online;
      core.has_baseline = false;  // Re-baseline a core that went away or came back.
    }
  }
  if (topology_changed || online_changed || rescan_due) {
    ResolvePolicies();
    rescan_.Scanned();
  }

  Interval all;
  bool all_has_interval = false;
  bool any_zero_interval = false;
  std::size_t t = 0;  // Walks times_, which the kernel prints in cpu order.
  for (Core& core : cores_) {
    if (!core.online) {
      out.push_back(MissingSample(kUtilization, core.labels, std::string(kOffline), now));
      continue;
    }
    while (t < times_.size() &&
           (times_[t].cpu == CpuTimes::kAggregate || times_[t].cpu < core.cpu)) {
      ++t;
    }
    if (t == times_.size() || times_[t].cpu != core.cpu) {
      // Onlined after /proc/stat was read; there is nothing to compare with yet.
      core.has_baseline = false;
      out.push_back(MissingSample(kUtilization, core.labels, "not in /proc/stat", now));
      continue;
    }
    const CpuTimes& current = times_[t];
    if (!core.has_baseline) {
      core.baseline = current;
      core.has_baseline = true;
      out.push_back(MissingSample(kUtilization, core.labels, std::string(kFirstSample), now));
      continue;
    }
    const Interval interval = Between(core.baseline, current);
    core.baseline = current;
    if (interval.total == 0) {
      any_zero_interval = true;
      out.push_back(MissingSample(kUtilization, core.labels, std::string(kNoTicks), now));
      continue;
    }
    all.busy += interval.busy;
    all.total += interval.total;
    all_has_interval = true;
    out.push_back(
        ValueSample(kUtilization, core.labels,
                    static_cast<double>(interval.busy) / static_cast<double>(interval.total), now));
  }
  if (all_has_interval) {
    out.push_back(ValueSample(kUtilization, all_labels_,
                              static_cast<double>(all.busy) / static_cast<double>(all.total), now));
  } else {
    out.push_back(MissingSample(kUtilization, all_labels_,
                                std::string(any_zero_interval ? kNoTicks : kFirstSample), now));
  }

  for (Core& core : cores_) EmitFrequency(core, now, out);
  return Status::Ok();
}

}  // namespace edgemond::collectors
