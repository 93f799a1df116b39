#include "collectors/collector_runner.h"

#include <gtest/gtest.h>

#include <chrono>

#include "collectors/memory_collector.h"
#include "collectors/thermal_collector.h"
#include "tests/testing/fake_clock.h"
#include "tests/testing/temp_dir.h"

namespace edgemond::collectors {
namespace {

using std::chrono::milliseconds;

// Wraps a real collector and makes its run take `duration` on the fake clock, as a slow sensor
// read would on a real one.
class SlowCollector final : public Collector {
 public:
  SlowCollector(std::unique_ptr<Collector> inner, testing::FakeClock& clock,
                std::chrono::nanoseconds duration)
      : inner_(std::move(inner)), clock_(&clock), duration_(duration) {}
  std::string_view name() const override { return inner_->name(); }
  std::vector<const MetricDesc*> Describe() const override { return inner_->Describe(); }
  Status CollectInto(WallTime now, std::vector<Sample>& out) override {
    clock_->Advance(duration_);
    return inner_->CollectInto(now, out);
  }

 private:
  std::unique_ptr<Collector> inner_;
  testing::FakeClock* clock_;
  std::chrono::nanoseconds duration_;
};

// Wraps a real collector, lets it append its samples, then fails: what it appended must not
// reach the tick.
class FailsAfterAppendingCollector final : public Collector {
 public:
  explicit FailsAfterAppendingCollector(std::unique_ptr<Collector> inner)
      : inner_(std::move(inner)) {}
  std::string_view name() const override { return "half"; }
  std::vector<const MetricDesc*> Describe() const override { return inner_->Describe(); }
  Status CollectInto(WallTime now, std::vector<Sample>& out) override {
    const Status status = inner_->CollectInto(now, out);
    if (!status.ok()) return status;
    return Status::Internal("failed after appending");
  }

 private:
  std::unique_ptr<Collector> inner_;
};

constexpr std::string_view kGoodMeminfo = "MemTotal: 1000 kB\nMemFree: 500 kB\n";

class CollectorRunnerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    sysfs_.Write("proc/meminfo", kGoodMeminfo);
    sysfs_.Mkdir("sys/class/thermal");  // No zones: the thermal collector reports kNotFound.
    auto fs = RootedFs::Open(sysfs_.path());
    ASSERT_TRUE(fs.ok()) << fs.status();
    fs_.emplace(std::move(*fs));
  }

  // The value of a self-metric for one collector, or nullopt when absent.
  static std::optional<double> SelfMetric(const TickReport& report, std::string_view metric,
                                          std::string_view collector) {
    for (const Sample& sample : report.samples) {
      if (sample.desc->name == metric && sample.labels.size() == 1 &&
          sample.labels[0].name == "collector" && sample.labels[0].value == collector) {
        return sample.value;
      }
    }
    return std::nullopt;
  }

  static int CountOf(const TickReport& report, std::string_view metric) {
    int count = 0;
    for (const Sample& sample : report.samples) count += sample.desc->name == metric;
    return count;
  }

  testing::FakeSysfs sysfs_;
  testing::FakeClock clock_;
  std::optional<RootedFs> fs_;
};

TEST_F(CollectorRunnerTest, OneFailureDoesNotStopTheOthers) {
  std::vector<std::unique_ptr<Collector>> collectors;
  collectors.push_back(std::make_unique<ThermalCollector>(*fs_));
  collectors.push_back(std::make_unique<MemoryCollector>(*fs_));
  CollectorRunner runner(std::move(collectors), clock_);
  const TickReport report = runner.RunOnce(clock_.WallNow());

  // No thermal zones here: the thermal collector ran fine and found nothing, which is no failure.
  EXPECT_EQ(SelfMetric(report, "edgemond_collector_success", "thermal"), 1.0);
  EXPECT_EQ(SelfMetric(report, "edgemond_collector_hardware_present", "thermal"), 0.0);
  EXPECT_EQ(SelfMetric(report, "edgemond_collector_success", "memory"), 1.0);
  EXPECT_EQ(SelfMetric(report, "edgemond_collector_hardware_present", "memory"), 1.0);
  EXPECT_EQ(CountOf(report, "edgemond_memory_total_bytes"), 1);
  EXPECT_EQ(CountOf(report, "edgemond_collector_duration_seconds"), 2);
  for (const Sample& sample : report.samples) EXPECT_EQ(sample.at, clock_.WallNow());
  // A first run that finds hardware or finds none is no event.
  EXPECT_TRUE(report.events.empty());

  ASSERT_EQ(runner.states().size(), 2u);
  EXPECT_EQ(runner.states()[0].health, CollectorHealth::kNoHardware);
  EXPECT_TRUE(runner.states()[0].last_error.IsNotFound());
  EXPECT_FALSE(runner.states()[0].failing());
  EXPECT_EQ(runner.states()[1].health, CollectorHealth::kOk);
  EXPECT_TRUE(runner.states()[1].last_error.ok());

  // The memory collector breaks: a failure, with the error and no sample of its own.
  sysfs_.Write("proc/meminfo", "MemTotal: garbled\n");
  const TickReport broken = runner.RunOnce(clock_.WallNow());
  EXPECT_EQ(SelfMetric(broken, "edgemond_collector_success", "memory"), 0.0);
  // Whether it has hardware is unknown: a missing value with the reason, never a 0.
  EXPECT_EQ(SelfMetric(broken, "edgemond_collector_hardware_present", "memory"), std::nullopt);
  const Sample* hardware = nullptr;
  for (const Sample& sample : broken.samples) {
    if (sample.desc->name == "edgemond_collector_hardware_present" &&
        sample.labels[0].value == "memory") {
      hardware = &sample;
    }
  }
  ASSERT_NE(hardware, nullptr);
  EXPECT_FALSE(hardware->value.has_value());
  EXPECT_EQ(hardware->missing_reason, runner.states()[1].last_error.ToString());
  EXPECT_FALSE(hardware->missing_reason.empty());
  EXPECT_TRUE(runner.states()[1].failing());
}

TEST_F(CollectorRunnerTest, AFailureOnTheFirstRunIsAnEvent) {
  std::vector<std::unique_ptr<Collector>> collectors;
  collectors.push_back(std::make_unique<MemoryCollector>(*fs_));
  sysfs_.Write("proc/meminfo", "MemTotal: garbled\n");
  CollectorRunner runner(std::move(collectors), clock_);
  const TickReport report = runner.RunOnce(clock_.WallNow());
  ASSERT_EQ(report.events.size(), 1u);
  EXPECT_EQ(report.events[0].collector, "memory");
  EXPECT_EQ(report.events[0].from, CollectorHealth::kPending);
  EXPECT_EQ(report.events[0].to, CollectorHealth::kFailing);
  EXPECT_EQ(report.events[0].error.code(), StatusCode::kCorruption);
}

TEST_F(CollectorRunnerTest, HardwareThatComesAndGoesIsAnEventEachWay) {
  std::vector<std::unique_ptr<Collector>> collectors;
  collectors.push_back(std::make_unique<ThermalCollector>(*fs_));
  CollectorRunner runner(std::move(collectors), clock_);
  EXPECT_TRUE(runner.RunOnce(clock_.WallNow()).events.empty());
  EXPECT_EQ(runner.states()[0].health, CollectorHealth::kNoHardware);

  sysfs_.Write("sys/class/thermal/thermal_zone0/type", "cpu-thermal\n");
  sysfs_.Write("sys/class/thermal/thermal_zone0/temp", "45000\n");
  TickReport found;
  // The collector looks for new zones at its rescans, not at every tick.
  for (int i = 0; i < 200 && found.events.empty(); ++i) found = runner.RunOnce(clock_.WallNow());
  ASSERT_EQ(found.events.size(), 1u);
  EXPECT_EQ(found.events[0].from, CollectorHealth::kNoHardware);
  EXPECT_EQ(found.events[0].to, CollectorHealth::kOk);
  EXPECT_EQ(SelfMetric(found, "edgemond_collector_hardware_present", "thermal"), 1.0);
}

TEST_F(CollectorRunnerTest, DropsWhatAFailedCollectorAppended) {
  std::vector<std::unique_ptr<Collector>> collectors;
  collectors.push_back(std::make_unique<MemoryCollector>(*fs_));
  collectors.push_back(
      std::make_unique<FailsAfterAppendingCollector>(std::make_unique<MemoryCollector>(*fs_)));
  collectors.push_back(std::make_unique<MemoryCollector>(*fs_));
  CollectorRunner runner(std::move(collectors), clock_);
  const TickReport report = runner.RunOnce(clock_.WallNow());

  // The two healthy collectors' samples, before and after the failed one; none of its own.
  EXPECT_EQ(CountOf(report, "edgemond_memory_total_bytes"), 2);
  EXPECT_EQ(SelfMetric(report, "edgemond_collector_success", "half"), 0.0);
  ASSERT_EQ(report.events.size(), 1u);
  EXPECT_EQ(report.events[0].collector, "half");
  EXPECT_EQ(report.events[0].to, CollectorHealth::kFailing);
  EXPECT_EQ(report.events[0].error.code(), StatusCode::kInternal);
}

TEST_F(CollectorRunnerTest, ReportsOnlyTransitions) {
  std::vector<std::unique_ptr<Collector>> collectors;
  collectors.push_back(std::make_unique<MemoryCollector>(*fs_));
  CollectorRunner runner(std::move(collectors), clock_);

  EXPECT_TRUE(runner.RunOnce(clock_.WallNow()).events.empty());  // Healthy from the start.

  sysfs_.Write("proc/meminfo", "MemTotal: garbled\n");
  TickReport broken = runner.RunOnce(clock_.WallNow());
  ASSERT_EQ(broken.events.size(), 1u);
  EXPECT_EQ(broken.events[0].from, CollectorHealth::kOk);
  EXPECT_EQ(broken.events[0].to, CollectorHealth::kFailing);
  EXPECT_EQ(broken.events[0].error.code(), StatusCode::kCorruption);
  EXPECT_EQ(SelfMetric(broken, "edgemond_collector_success", "memory"), 0.0);
  EXPECT_EQ(CountOf(broken, "edgemond_memory_total_bytes"), 0);

  for (int i = 0; i < 5; ++i) {
    const TickReport still_broken = runner.RunOnce(clock_.WallNow());
    EXPECT_TRUE(still_broken.events.empty());
    EXPECT_EQ(SelfMetric(still_broken, "edgemond_collector_success", "memory"), 0.0);
  }

  sysfs_.Write("proc/meminfo", kGoodMeminfo);
  TickReport recovered = runner.RunOnce(clock_.WallNow());
  ASSERT_EQ(recovered.events.size(), 1u);
  EXPECT_EQ(recovered.events[0].from, CollectorHealth::kFailing);
  EXPECT_EQ(recovered.events[0].to, CollectorHealth::kOk);
  EXPECT_EQ(recovered.events[0].collector, "memory");
  EXPECT_TRUE(recovered.events[0].error.ok());
  EXPECT_EQ(SelfMetric(recovered, "edgemond_collector_success", "memory"), 1.0);

  EXPECT_TRUE(runner.RunOnce(clock_.WallNow()).events.empty());
}

TEST_F(CollectorRunnerTest, TimesEachCollectorOnTheInjectedClock) {
  std::vector<std::unique_ptr<Collector>> collectors;
  collectors.push_back(std::make_unique<SlowCollector>(std::make_unique<MemoryCollector>(*fs_),
                                                       clock_, milliseconds(3)));
  collectors.push_back(std::make_unique<SlowCollector>(std::make_unique<ThermalCollector>(*fs_),
                                                       clock_, milliseconds(250)));
  CollectorRunner runner(std::move(collectors), clock_);
  const TickReport report = runner.RunOnce(clock_.WallNow());
  EXPECT_DOUBLE_EQ(*SelfMetric(report, "edgemond_collector_duration_seconds", "memory"), 0.003);
  // A failing collector is timed too.
  EXPECT_DOUBLE_EQ(*SelfMetric(report, "edgemond_collector_duration_seconds", "thermal"), 0.25);
  EXPECT_EQ(runner.states()[1].last_duration, milliseconds(250));
}

TEST_F(CollectorRunnerTest, DescribesItsOwnAndItsCollectorsMetrics) {
  std::vector<std::unique_ptr<Collector>> collectors;
  collectors.push_back(std::make_unique<MemoryCollector>(*fs_));
  CollectorRunner runner(std::move(collectors), clock_);
  const std::vector<const MetricDesc*> descs = runner.Describe();
  EXPECT_EQ(descs.size(), CollectorRunner::Metrics().size() + MemoryCollector::Metrics().size());
  EXPECT_EQ(descs[0]->name, "edgemond_collector_success");
  EXPECT_EQ(descs[1]->name, "edgemond_collector_hardware_present");
  EXPECT_EQ(descs[2]->name, "edgemond_collector_duration_seconds");
  EXPECT_EQ(descs[2]->unit, "seconds");
}

}  // namespace
}  // namespace edgemond::collectors
