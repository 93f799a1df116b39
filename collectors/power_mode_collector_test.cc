#include "collectors/power_mode_collector.h"

#include <gtest/gtest.h>

#include "collectors/collector_test_util.h"
#include "tests/testing/fake_clock.h"
#include "tests/testing/temp_dir.h"

namespace edgemond::collectors {
namespace {

using testing::ExpectSamples;
using testing::Missing;
using testing::Wants;

std::string Mode(std::string_view id, std::string_view name) {
  return SeriesKey("edgemond_power_mode_info",
                   Labels{{"id", std::string(id)}, {"name", std::string(name)}});
}
const std::string kClocks = "edgemond_jetson_clocks_active";

constexpr std::string_view kConf =
    "# comment\n< PARAM TYPE=FILE NAME=CPU_ONLINE >\nCORE_0 /sys/devices/system/cpu/cpu0/online\n"
    "< POWER_MODEL ID=0 NAME=15W >\nCPU_ONLINE CORE_0 1\n"
    "< POWER_MODEL ID=1 NAME=25W >\n< POWER_MODEL ID=2 NAME=MAXN_SUPER >\n"
    "< POWER_MODEL ID=3 NAME=7W >\n< PM_CONFIG DEFAULT=2 >\n";

class PowerModeCollectorTest : public ::testing::Test {
 protected:
  void Open(const std::string& root, int rescan_every_ticks = 60) {
    auto fs = RootedFs::Open(root);
    ASSERT_TRUE(fs.ok()) << fs.status();
    fs_.emplace(std::move(*fs));
    collector_.emplace(*fs_, rescan_every_ticks);
  }
  void OpenFixture(std::string_view board) {
    Open(edgemond::testing::FixturePath("devices/" + std::string(board)));
  }
  Result<std::vector<Sample>> Tick() {
    clock_.Advance(std::chrono::seconds(1));
    at_ = clock_.WallNow();
    return collector_->Collect(at_);
  }
  void AddPolicy(int n, std::string_view affected, std::string_view min, std::string_view max) {
    const std::string p = "sys/devices/system/cpu/cpufreq/policy" + std::to_string(n);
    sysfs_.Write(p + "/affected_cpus", std::string(affected) + "\n");
    sysfs_.Write(p + "/scaling_min_freq", std::string(min) + "\n");
    sysfs_.Write(p + "/scaling_max_freq", std::string(max) + "\n");
  }

  edgemond::testing::FakeSysfs sysfs_;
  edgemond::testing::FakeClock clock_;
  WallTime at_;
  std::optional<RootedFs> fs_;
  std::optional<PowerModeCollector> collector_;
};

TEST_F(PowerModeCollectorTest, OrinJp6In7W) {
  OpenFixture("jetson-orin-jp6");
  const auto samples = Tick();
  ASSERT_TRUE(samples.ok()) << samples.status();
  // policy0 runs 729.6..960 MHz; policy4 has no online CPU and is skipped.
  ExpectSamples(*samples, Wants{{Mode("1", "7W"), 1.0}, {kClocks, 0.0}}, at_, &*collector_);
}

TEST_F(PowerModeCollectorTest, XavierNxJp5WithJetsonClocks) {
  OpenFixture("jetson-xavier-nx-jp5");
  const auto samples = Tick();
  ASSERT_TRUE(samples.ok()) << samples.status();
  ExpectSamples(*samples, Wants{{Mode("8", "MODE_20W_6CORE"), 1.0}, {kClocks, 1.0}}, at_,
                &*collector_);
}

TEST_F(PowerModeCollectorTest, NanoJp4In5W) {
  OpenFixture("jetson-nano-jp4");
  const auto samples = Tick();
  ASSERT_TRUE(samples.ok()) << samples.status();
  ExpectSamples(*samples, Wants{{Mode("1", "5W"), 1.0}, {kClocks, 0.0}}, at_, &*collector_);
}

TEST_F(PowerModeCollectorTest, NotAJetsonIsNotFound) {
  for (const char* board : {"x86-desktop", "raspberry-pi-4", "x86-nvidia"}) {
    OpenFixture(board);
    EXPECT_TRUE(Tick().status().IsNotFound()) << board;
  }
}

TEST_F(PowerModeCollectorTest, BeforeAnyModeIsSetTheDefaultApplies) {
  sysfs_.Write("etc/nvpmodel.conf", std::string(kConf));
  Open(sysfs_.path());
  const auto samples = Tick();
  ASSERT_TRUE(samples.ok()) << samples.status();
  ExpectSamples(*samples, Wants{{Mode("2", "MAXN_SUPER"), 1.0}}, at_, &*collector_);
}

TEST_F(PowerModeCollectorTest, AModeChangeIsSeenAtTheNextTickWithTheConfigReadAgain) {
  sysfs_.Write("etc/nvpmodel.conf", std::string(kConf));
  sysfs_.Write("var/lib/nvpmodel/status", "pmode:0000 fmode:quiet\n");
  Open(sysfs_.path());
  auto samples = Tick();
  ASSERT_TRUE(samples.ok()) << samples.status();
  ExpectSamples(*samples, Wants{{Mode("0", "15W"), 1.0}}, at_, &*collector_);
  // A new nvpmodel configuration (an upgrade) and a mode it adds.
  sysfs_.Write("etc/nvpmodel.conf", std::string(kConf) + "< POWER_MODEL ID=4 NAME=40W >\n");
  sysfs_.Write("var/lib/nvpmodel/status", "pmode:0004 fmode:cool\n");
  samples = Tick();
  ASSERT_TRUE(samples.ok()) << samples.status();
  ExpectSamples(*samples, Wants{{Mode("4", "40W"), 1.0}}, at_, &*collector_);
}

TEST_F(PowerModeCollectorTest, AnIdTheConfigDoesNotNameHasAnEmptyName) {
  sysfs_.Write("etc/nvpmodel.conf", "< POWER_MODEL ID=broken NAME= >\ngarbage <<<\n");
  sysfs_.Write("var/lib/nvpmodel/status", "pmode:0009\n");
  Open(sysfs_.path());
  const auto samples = Tick();
  ASSERT_TRUE(samples.ok()) << samples.status();
  ExpectSamples(*samples, Wants{{Mode("9", ""), 1.0}}, at_, &*collector_);
}

TEST_F(PowerModeCollectorTest, JetsonClocksNeedsEveryOnlineClusterPinned) {
  sysfs_.Write("var/lib/nvpmodel/status", "pmode:0000\n");
  AddPolicy(0, "0 1 2 3", "1510400", "1510400");
  AddPolicy(4, "4 5", "729600", "1510400");
  Open(sysfs_.path());
  auto samples = Tick();
  ASSERT_TRUE(samples.ok()) << samples.status();
  ExpectSamples(*samples, Wants{{Mode("0", ""), 1.0}, {kClocks, 0.0}}, at_, &*collector_);
  AddPolicy(4, "", "729600", "1510400");  // Its CPUs went offline: it no longer counts.
  samples = Tick();
  ASSERT_TRUE(samples.ok()) << samples.status();
  ExpectSamples(*samples, Wants{{Mode("0", ""), 1.0}, {kClocks, 1.0}}, at_, &*collector_);
}

TEST_F(PowerModeCollectorTest, AnUnreadableLimitMakesJetsonClocksMissing) {
  sysfs_.Write("var/lib/nvpmodel/status", "pmode:0000\n");
  AddPolicy(0, "0 1", "1510400", "1510400");
  sysfs_.Write("sys/devices/system/cpu/cpufreq/policy0/scaling_max_freq", "");
  Open(sysfs_.path());
  const auto samples = Tick();
  ASSERT_TRUE(samples.ok()) << samples.status();
  ExpectSamples(*samples, Wants{{Mode("0", ""), 1.0}, {kClocks, Missing("empty file")}}, at_,
                &*collector_);
}

}  // namespace
}  // namespace edgemond::collectors
