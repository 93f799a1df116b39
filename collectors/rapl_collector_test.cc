#include "collectors/rapl_collector.h"

#include <gtest/gtest.h>

#include <cstdio>

#include "collectors/collector_test_util.h"
#include "tests/testing/fake_clock.h"
#include "tests/testing/temp_dir.h"

namespace edgemond::collectors {
namespace {

using testing::ExpectSamples;
using testing::Missing;
using testing::Wants;

std::string Energy(std::string_view domain) {
  return SeriesKey("edgemond_energy_joules_total", Labels{{"domain", std::string(domain)}});
}
std::string Power(std::string_view domain) {
  return SeriesKey("edgemond_power_domain_watts", Labels{{"domain", std::string(domain)}});
}

constexpr std::string_view kRapl = "sys/devices/virtual/powercap/intel-rapl";

class RaplCollectorTest : public ::testing::Test {
 protected:
  void Open(const std::string& root) {
    auto fs = RootedFs::Open(root);
    ASSERT_TRUE(fs.ok()) << fs.status();
    fs_.emplace(std::move(*fs));
    collector_.emplace(*fs_, clock_);
  }
  Result<std::vector<Sample>> Tick(std::chrono::milliseconds step = std::chrono::seconds(1)) {
    clock_.Advance(step);
    at_ = clock_.WallNow();
    return collector_->Collect(at_);
  }
  // A zone below /sys/devices/virtual/powercap/intel-rapl, e.g. "intel-rapl:0" or
  // "intel-rapl:0/intel-rapl:0:2", with its class link.
  void AddZone(const std::string& path, std::string_view name, std::string_view energy_uj,
               std::string_view max_range_uj = "262143328850", int mode = 0644) {
    const std::string dir = std::string(kRapl) + "/" + path;
    sysfs_.Write(dir + "/name", std::string(name) + "\n");
    sysfs_.Write(dir + "/energy_uj", std::string(energy_uj) + "\n", mode);
    sysfs_.Write(dir + "/max_energy_range_uj", std::string(max_range_uj) + "\n");
    const std::string leaf = path.substr(path.rfind('/') + 1);
    sysfs_.Symlink("sys/class/powercap/" + leaf,
                   "../../devices/virtual/powercap/intel-rapl/" + path);
  }
  void SetEnergy(const std::string& path, std::string_view energy_uj) {
    sysfs_.Write(std::string(kRapl) + "/" + path + "/energy_uj", std::string(energy_uj) + "\n");
  }

  edgemond::testing::FakeSysfs sysfs_;
  edgemond::testing::FakeClock clock_;
  WallTime at_;
  std::optional<RootedFs> fs_;
  std::optional<RaplCollector> collector_;
};

TEST_F(RaplCollectorTest, X86DesktopDomainsAreNamedByZoneNameNotNumber) {
  Open(edgemond::testing::FixturePath("devices/x86-desktop"));
  const auto samples = Tick();
  ASSERT_TRUE(samples.ok()) << samples.status();
  ExpectSamples(*samples,
                Wants{
                    {Energy("package-0"), 84736.512305},
                    {Energy("package-0/core"), 51877.340112},
                    {Energy("package-0/uncore"), 1203.445566},
                    {Energy("package-0/dram"), 9934.122078},
                    {Power("package-0"), Missing("first sample")},
                    {Power("package-0/core"), Missing("first sample")},
                    {Power("package-0/uncore"), Missing("first sample")},
                    {Power("package-0/dram"), Missing("first sample")},
                },
                at_, &*collector_);
}

TEST_F(RaplCollectorTest, PowerIsTheIntervalsEnergyOverTheMonotonicInterval) {
  AddZone("intel-rapl:0", "package-0", "1000000");
  Open(sysfs_.path());
  ASSERT_TRUE(Tick().ok());
  SetEnergy("intel-rapl:0", "13500000");   // 12.5 J in 500 ms.
  clock_.StepWall(std::chrono::hours(1));  // A wall-clock jump changes nothing.
  const auto samples = Tick(std::chrono::milliseconds(500));
  ASSERT_TRUE(samples.ok()) << samples.status();
  ExpectSamples(*samples, Wants{{Energy("package-0"), 13.5}, {Power("package-0"), 25.0}}, at_,
                &*collector_);
}

TEST_F(RaplCollectorTest, ACounterThatWrapsKeepsCountingUp) {
  AddZone("intel-rapl:0", "package-0", "262143000000", "262143328850");
  Open(sysfs_.path());
  ASSERT_TRUE(Tick().ok());
  SetEnergy("intel-rapl:0", "671150");  // 328850 µJ to the top, then 671150 µJ: 1 J.
  const auto samples = Tick();
  ASSERT_TRUE(samples.ok()) << samples.status();
  ExpectSamples(*samples, Wants{{Energy("package-0"), 262143.0 + 1.0}, {Power("package-0"), 1.0}},
                at_, &*collector_);
}

TEST_F(RaplCollectorTest, MmioZonesAreNotCountedTwice) {
  AddZone("intel-rapl:0", "package-0", "5000000");
  sysfs_.Write("sys/devices/virtual/powercap/intel-rapl-mmio/intel-rapl-mmio:0/name",
               "package-0\n");
  sysfs_.Write("sys/devices/virtual/powercap/intel-rapl-mmio/intel-rapl-mmio:0/energy_uj",
               "5000000\n");
  sysfs_.Symlink("sys/class/powercap/intel-rapl-mmio:0",
                 "../../devices/virtual/powercap/intel-rapl-mmio/intel-rapl-mmio:0");
  Open(sysfs_.path());
  const auto samples = Tick();
  ASSERT_TRUE(samples.ok()) << samples.status();
  ExpectSamples(*samples,
                Wants{{Energy("package-0"), 5.0}, {Power("package-0"), Missing("first sample")}},
                at_, &*collector_);
}

TEST_F(RaplCollectorTest, AnIntervalAcrossAnUnreadableTickIsStillRight) {
  AddZone("intel-rapl:0", "package-0", "1000000");
  Open(sysfs_.path());
  ASSERT_TRUE(Tick().ok());
  SetEnergy("intel-rapl:0", "");
  auto samples = Tick();
  ASSERT_TRUE(samples.ok()) << samples.status();
  ExpectSamples(*samples,
                Wants{{Energy("package-0"), Missing("empty file")},
                      {Power("package-0"), Missing("empty file")}},
                at_, &*collector_);
  SetEnergy("intel-rapl:0", "3000000");
  samples = Tick();
  ASSERT_TRUE(samples.ok()) << samples.status();
  // The counter is cumulative: 2 J over the two seconds since the last good reading.
  ExpectSamples(*samples, Wants{{Energy("package-0"), 3.0}, {Power("package-0"), 1.0}}, at_,
                &*collector_);
}

TEST_F(RaplCollectorTest, RootOnlyEnergyNeedsPrivilege) {
  // energy_uj is mode 0400 since Linux 5.10 (CVE-2020-8694).
  AddZone("intel-rapl:0", "package-0", "1000000", "262143328850", 0);
  EXPECT_EXIT(
      {
        if (!testing::DropFileReadPrivilege(sysfs_.path())) std::_Exit(2);
        auto fs = RootedFs::Open(sysfs_.path());
        if (!fs.ok()) std::_Exit(3);
        RaplCollector collector(*fs, clock_);
        auto samples = collector.Collect(WallTime());
        if (!samples.ok()) std::_Exit(4);
        for (const Sample& sample : *samples) {
          std::fprintf(stderr, "%s=%s\n", std::string(sample.desc->name).c_str(),
                       sample.missing_reason.c_str());
        }
        std::_Exit(0);
      },
      ::testing::ExitedWithCode(0),
      "edgemond_energy_joules_total=needs privilege\n"
      "edgemond_power_domain_watts=needs privilege");
}

TEST_F(RaplCollectorTest, NoPowercapIsNotFound) {
  Open(sysfs_.path());
  EXPECT_TRUE(Tick().status().IsNotFound());
}

}  // namespace
}  // namespace edgemond::collectors
