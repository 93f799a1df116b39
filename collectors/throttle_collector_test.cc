#include "collectors/throttle_collector.h"

#include <gtest/gtest.h>

#include "collectors/collector_test_util.h"
#include "tests/testing/fake_clock.h"
#include "tests/testing/temp_dir.h"

namespace edgemond::collectors {
namespace {

using testing::ExpectSamples;
using testing::Missing;
using testing::Wants;

std::string Throttled(std::string_view component, std::string_view reason) {
  return SeriesKey("edgemond_throttled",
                   Labels{{"component", std::string(component)}, {"reason", std::string(reason)}});
}

class ThrottleCollectorTest : public ::testing::Test {
 protected:
  void Open(const std::string& root) {
    auto fs = RootedFs::Open(root);
    ASSERT_TRUE(fs.ok()) << fs.status();
    fs_.emplace(std::move(*fs));
    collector_.emplace(*fs_);
  }
  void OpenFixture(std::string_view board) {
    Open(edgemond::testing::FixturePath("devices/" + std::string(board)));
  }
  Result<std::vector<Sample>> Tick() {
    clock_.Advance(std::chrono::seconds(1));
    at_ = clock_.WallNow();
    return collector_->Collect(at_);
  }
  void AddPolicy(int n, std::string_view affected, std::string_view max) {
    const std::string p = "sys/devices/system/cpu/cpufreq/policy" + std::to_string(n);
    sysfs_.Write(p + "/affected_cpus", std::string(affected) + "\n");
    sysfs_.Write(p + "/cpuinfo_max_freq", "1800000\n");
    sysfs_.Write(p + "/scaling_max_freq", std::string(max) + "\n");
  }
  void AddCoolingDevice(int n, std::string_view type, std::string_view state) {
    const std::string d = "sys/class/thermal/cooling_device" + std::to_string(n);
    sysfs_.Write(d + "/type", std::string(type) + "\n");
    sysfs_.Write(d + "/cur_state", std::string(state) + "\n");
  }

  edgemond::testing::FakeSysfs sysfs_;
  edgemond::testing::FakeClock clock_;
  WallTime at_;
  std::optional<RootedFs> fs_;
  std::optional<ThrottleCollector> collector_;
};

TEST_F(ThrottleCollectorTest, Boards) {
  const struct {
    const char* board;
    Wants want;
  } boards[] = {
      // The 7W power mode caps the online cluster at 960 MHz of 1510.4.
      {"jetson-orin-jp6", {{Throttled("cpu", "frequency_cap"), 1.0}}},
      {"jetson-xavier-nx-jp5", {{Throttled("cpu", "frequency_cap"), 1.0}}},
      {"jetson-nano-jp4", {{Throttled("cpu", "frequency_cap"), 1.0}}},
      {"x86-desktop", {{Throttled("cpu", "frequency_cap"), 0.0}}},
      {"x86-nvidia", {{Throttled("cpu", "frequency_cap"), 0.0}}},
      {"raspberry-pi-4",
       {{Throttled("cpu", "frequency_cap"), 0.0}, {Throttled("board", "under_voltage"), 1.0}}},
  };
  for (const auto& [board, want] : boards) {
    SCOPED_TRACE(board);
    OpenFixture(board);
    const auto samples = Tick();
    ASSERT_TRUE(samples.ok()) << samples.status();
    ExpectSamples(*samples, want, at_, &*collector_);
  }
}

TEST_F(ThrottleCollectorTest, OneCappedClusterIsEnoughAndOfflineOnesDoNotCount) {
  AddPolicy(0, "0 1 2 3", "1800000");
  AddPolicy(4, "", "600000");  // Every CPU offline.
  Open(sysfs_.path());
  auto samples = Tick();
  ASSERT_TRUE(samples.ok()) << samples.status();
  ExpectSamples(*samples, Wants{{Throttled("cpu", "frequency_cap"), 0.0}}, at_, &*collector_);
  AddPolicy(4, "4 5", "600000");  // Back online, capped.
  samples = Tick();
  ASSERT_TRUE(samples.ok()) << samples.status();
  ExpectSamples(*samples, Wants{{Throttled("cpu", "frequency_cap"), 1.0}}, at_, &*collector_);
}

TEST_F(ThrottleCollectorTest, ActiveCpufreqCoolingIsThermalThrottling) {
  AddPolicy(0, "0 1 2 3", "1500000");
  AddCoolingDevice(0, "pwm-fan", "3");  // A fan is not a throttle.
  AddCoolingDevice(1, "cpufreq-cpu0", "0");
  AddCoolingDevice(2, "thermal-cpufreq-1", "0");  // The name before Linux 5.x.
  Open(sysfs_.path());
  auto samples = Tick();
  ASSERT_TRUE(samples.ok()) << samples.status();
  ExpectSamples(*samples,
                Wants{{Throttled("cpu", "frequency_cap"), 1.0}, {Throttled("cpu", "thermal"), 0.0}},
                at_, &*collector_);
  AddCoolingDevice(2, "thermal-cpufreq-1", "2");
  samples = Tick();
  ASSERT_TRUE(samples.ok()) << samples.status();
  ExpectSamples(*samples,
                Wants{{Throttled("cpu", "frequency_cap"), 1.0}, {Throttled("cpu", "thermal"), 1.0}},
                at_, &*collector_);
}

TEST_F(ThrottleCollectorTest, AnUnreadableAlarmIsMissing) {
  const std::string d = "sys/devices/platform/soc/soc:firmware/raspberrypi-hwmon/hwmon/hwmon1";
  sysfs_.Write(d + "/name", "rpi_volt\n");
  sysfs_.Write(d + "/in0_lcrit_alarm", "");
  sysfs_.Symlink("sys/class/hwmon/hwmon1",
                 "../../devices/platform/soc/soc:firmware/raspberrypi-hwmon/hwmon/hwmon1");
  Open(sysfs_.path());
  const auto samples = Tick();
  ASSERT_TRUE(samples.ok()) << samples.status();
  ExpectSamples(*samples, Wants{{Throttled("board", "under_voltage"), Missing("empty file")}}, at_,
                &*collector_);
}

TEST_F(ThrottleCollectorTest, AMachineWithoutCpufreqHasNothingToSay) {
  sysfs_.Mkdir("sys/devices/system/cpu");
  Open(sysfs_.path());
  EXPECT_TRUE(Tick().status().IsNotFound());
}

}  // namespace
}  // namespace edgemond::collectors
