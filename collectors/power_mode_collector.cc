#include "collectors/power_mode_collector.h"

#include <utility>

#include "collectors/internal/discovery.h"
#include "collectors/internal/jetson_gpu.h"
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

constexpr MetricDesc kPowerModeInfo{
    "edgemond_power_mode_info",
    "The active Jetson power mode (nvpmodel), as labels; the value is always 1", MetricType::kGauge,
    ""};
constexpr MetricDesc kJetsonClocksActive{
    "edgemond_jetson_clocks_active",
    "1 when every online CPU cluster and the GPU are pinned to min == max frequency "
    "(jetson_clocks), else 0",
    MetricType::kGauge, ""};

constexpr std::string_view kStatusPath = "/var/lib/nvpmodel/status";
constexpr std::string_view kConfPath = "/etc/nvpmodel.conf";

}  // namespace

PowerModeCollector::PowerModeCollector(const RootedFs& fs, internal::TickFiles* shared_files,
                                       int rescan_every_ticks)
    : fs_(&fs),
      rescan_(rescan_every_ticks),
      files_(fs, shared_files),
      status_file_(fs, std::string(kStatusPath)) {}

std::vector<const MetricDesc*> PowerModeCollector::Metrics() {
  return {&kPowerModeInfo, &kJetsonClocksActive};
}

void PowerModeCollector::ReadConf() {
  conf_read_ = true;
  auto text = fs_->ReadFile(kConfPath);
  conf_ = text.ok() ? internal::ParseNvpmodelConf(*text) : internal::NvpmodelConf{};
}

Status PowerModeCollector::Scan() {
  rescan_.Scanned();
  const bool has_nvpmodel = fs_->Exists(kStatusPath) || fs_->Exists(kConfPath);
  if (!has_nvpmodel && !internal::IsTegraBoard(*fs_)) {
    limits_.clear();
    return Status::NotFound("not a Jetson: no nvpmodel and no Tegra device tree");
  }
  ReadConf();
  internal::ReusableFiles old(files_);
  for (Limits& limits : limits_) {
    if (limits.affected_cpus) old.Keep(std::move(*limits.affected_cpus));
    old.Keep(std::move(limits.min));
    old.Keep(std::move(limits.max));
  }
  limits_.clear();
  for (const std::string& dir : internal::CpufreqPolicyDirs(*fs_)) {
    limits_.push_back(Limits{old.Take(dir + "affected_cpus"), old.Take(dir + "scaling_min_freq"),
                             old.Take(dir + "scaling_max_freq")});
  }
  for (const internal::JetsonGpu& gpu : internal::FindJetsonGpus(*fs_)) {
    limits_.push_back(Limits{std::nullopt, old.Take(gpu.devfreq_dir + "/min_freq"),
                             old.Take(gpu.devfreq_dir + "/max_freq")});
  }
  return Status::Ok();
}

void PowerModeCollector::CollectPowerMode(WallTime now, std::vector<Sample>& out) {
  std::optional<int> id;
  if (Status status = status_file_.ReadInto(text_); status.ok()) {
    id = internal::ParseNvpmodelStatus(text_);
  }
  if (!id) id = conf_.default_id;  // No mode set since installation: the default applies.
  if (!id) return;
  if (id != last_id_ && last_id_) ReadConf();  // The mode changed; the config may have too.
  last_id_ = id;
  std::string name = conf_.NameOf(*id).value_or("");
  if (mode_labels_.empty() || *id != mode_labels_id_ || name != mode_labels_name_) {
    mode_labels_ = Labels{{"id", std::to_string(*id)}, {"name", name}};
    mode_labels_id_ = *id;
    mode_labels_name_ = std::move(name);
  }
  out.push_back(ValueSample(kPowerModeInfo, mode_labels_, 1.0, now));
}

void PowerModeCollector::CollectJetsonClocks(WallTime now, std::vector<Sample>& out) {
  if (limits_.empty()) return;
  bool pinned = true;
  bool checked = false;
  for (Limits& limits : limits_) {
    if (limits.affected_cpus) {
      // A cluster with every CPU offline has no limits to pin (its reads fail with EBUSY).
      if (Status status = limits.affected_cpus->ReadInto(text_);
          !status.ok() || Trim(text_).empty()) {
        continue;
      }
    }
    auto min = ReadSysfsInt(limits.min, text_);
    auto max = ReadSysfsInt(limits.max, text_);
    if (!min.ok() || !max.ok()) {
      const Status& error = min.ok() ? max.status() : min.status();
      out.push_back(MissingSample(kJetsonClocksActive, {}, MissingReasonFromStatus(error), now));
      return;
    }
    checked = true;
    pinned &= *min == *max;
  }
  if (checked) out.push_back(ValueSample(kJetsonClocksActive, {}, pinned ? 1.0 : 0.0, now));
}

Status PowerModeCollector::CollectInto(WallTime now, std::vector<Sample>& out) {
  files_.StartCollection();
  if (rescan_.StartTick()) scan_status_ = Scan();
  if (!scan_status_.ok()) return scan_status_;
  CollectPowerMode(now, out);
  CollectJetsonClocks(now, out);
  return Status::Ok();
}

}  // namespace edgemond::collectors
