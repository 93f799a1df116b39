#include "collectors/collector_runner.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

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

// A collector whose collection blocks until the test releases it, as a read of a hung I2C sensor
// would. It owns what it touches (the gate), because a blocked collection may outlive its runner.
class BlockingCollector final : public Collector {
 public:
  struct Gate {
    std::mutex mu;
    std::condition_variable changed;
    bool block = true;  // Whether the next collections block.
    int entered = 0;    // Collections that began.
    int returned = 0;   // Collections that returned.
    bool destroyed = false;
  };

  explicit BlockingCollector(std::shared_ptr<Gate> gate) : gate_(std::move(gate)) {}
  ~BlockingCollector() override {
    std::lock_guard lock(gate_->mu);
    gate_->destroyed = true;
    gate_->changed.notify_all();
  }
  std::string_view name() const override { return "stuck"; }
  std::vector<const MetricDesc*> Describe() const override { return {}; }
  Status CollectInto(WallTime now, std::vector<Sample>& out) override {
    std::unique_lock lock(gate_->mu);
    ++gate_->entered;
    gate_->changed.notify_all();
    gate_->changed.wait(lock, [&] { return !gate_->block; });
    ++gate_->returned;
    gate_->changed.notify_all();
    out.push_back(Sample{&kStuckMetric, {}, 1.0, {}, now});
    return Status::Ok();
  }

  static constexpr MetricDesc kStuckMetric{"edgemond_test_stuck", "", MetricType::kGauge, ""};

 private:
  std::shared_ptr<Gate> gate_;
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

// A collection that blocks is given up on at the timeout: the collectors after it run in the same
// tick, later ticks skip it without waiting, and it comes back once its collection returns.
TEST_F(CollectorRunnerTest, ACollectionThatBlocksTimesOutAndTheOthersGoOn) {
  auto gate = std::make_shared<BlockingCollector::Gate>();
  std::vector<std::unique_ptr<Collector>> collectors;
  collectors.push_back(std::make_unique<MemoryCollector>(*fs_));
  collectors.push_back(std::make_unique<BlockingCollector>(gate));
  collectors.push_back(std::make_unique<MemoryCollector>(*fs_));
  CollectorRunner runner(std::move(collectors), clock_, milliseconds(50));

  const TickReport first = runner.RunOnce(clock_.WallNow());
  EXPECT_EQ(CountOf(first, "edgemond_memory_total_bytes"), 2);  // Before and after it.
  EXPECT_EQ(CountOf(first, "edgemond_test_stuck"), 0);
  EXPECT_EQ(SelfMetric(first, "edgemond_collector_success", "stuck"), 0.0);
  EXPECT_EQ(SelfMetric(first, "edgemond_collector_hardware_present", "stuck"), std::nullopt);
  EXPECT_GE(*SelfMetric(first, "edgemond_collector_duration_seconds", "stuck"), 0.05);
  ASSERT_EQ(first.events.size(), 1u);
  EXPECT_EQ(first.events[0].collector, "stuck");
  EXPECT_EQ(first.events[0].to, CollectorHealth::kFailing);
  EXPECT_EQ(first.events[0].error.code(), StatusCode::kDeadlineExceeded);
  EXPECT_NE(first.events[0].error.message().find("timed out"), std::string::npos)
      << first.events[0].error;

  // Still blocked: not run again (one collection began in all), no new event, the others run.
  for (int i = 0; i < 3; ++i) {
    const TickReport later = runner.RunOnce(clock_.WallNow());
    EXPECT_EQ(CountOf(later, "edgemond_memory_total_bytes"), 2);
    EXPECT_TRUE(later.events.empty());
    EXPECT_EQ(SelfMetric(later, "edgemond_collector_success", "stuck"), 0.0);
    EXPECT_NE(runner.states()[1].last_error.message().find("still blocked"), std::string::npos)
        << runner.states()[1].last_error;
  }
  {
    std::lock_guard lock(gate->mu);
    EXPECT_EQ(gate->entered, 1);
    gate->block = false;
    gate->changed.notify_all();
  }
  {
    std::unique_lock lock(gate->mu);
    gate->changed.wait(lock, [&] { return gate->returned == 1; });
  }
  // The late collection's sample belongs to a tick long gone: it is dropped. Once the blocked
  // thread has let go of the collector, the next tick runs it again.
  TickReport recovered;
  for (int i = 0; i < 1000 && recovered.events.empty(); ++i) {
    recovered = runner.RunOnce(clock_.WallNow());
    if (recovered.events.empty()) std::this_thread::sleep_for(milliseconds(1));
  }
  ASSERT_EQ(recovered.events.size(), 1u);
  EXPECT_EQ(recovered.events[0].from, CollectorHealth::kFailing);
  EXPECT_EQ(recovered.events[0].to, CollectorHealth::kOk);
  EXPECT_EQ(CountOf(recovered, "edgemond_test_stuck"), 1);
  EXPECT_EQ(SelfMetric(recovered, "edgemond_collector_success", "stuck"), 1.0);
}

// A runner destroyed while a collection is blocked returns at once; the blocked thread frees the
// collector when its collection returns.
TEST_F(CollectorRunnerTest, DestroyingTheRunnerDoesNotWaitForABlockedCollection) {
  auto gate = std::make_shared<BlockingCollector::Gate>();
  {
    std::vector<std::unique_ptr<Collector>> collectors;
    collectors.push_back(std::make_unique<BlockingCollector>(gate));
    CollectorRunner runner(std::move(collectors), clock_, milliseconds(20));
    EXPECT_EQ(SelfMetric(runner.RunOnce(clock_.WallNow()), "edgemond_collector_success", "stuck"),
              0.0);
  }
  std::unique_lock lock(gate->mu);
  EXPECT_EQ(gate->entered, 1);
  EXPECT_FALSE(gate->destroyed);
  gate->block = false;
  gate->changed.notify_all();
  gate->changed.wait(lock, [&] { return gate->destroyed; });
  EXPECT_EQ(gate->returned, 1);
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
