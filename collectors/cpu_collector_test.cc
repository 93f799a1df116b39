#include "collectors/cpu_collector.h"

#include <gtest/gtest.h>

#include <chrono>

#include "collectors/collector_test_util.h"
#include "collectors/internal/proc_stat_parse.h"
#include "tests/testing/fake_clock.h"
#include "tests/testing/temp_dir.h"

namespace edgemond::collectors {
namespace {

using internal::CpuTimes;
using testing::ExpectSamples;
using testing::Missing;
using testing::Wants;

std::string FormatProcStat(const std::vector<CpuTimes>& cpus) {
  std::string text;
  for (const CpuTimes& t : cpus) {
    text += t.cpu == CpuTimes::kAggregate ? std::string("cpu ") : "cpu" + std::to_string(t.cpu);
    for (const std::uint64_t v :
         {t.user_ticks, t.nice_ticks, t.system_ticks, t.idle_ticks, t.iowait_ticks, t.irq_ticks,
          t.softirq_ticks, t.steal_ticks, t.guest_ticks, t.guest_nice_ticks}) {
      text += " " + std::to_string(v);
    }
    text += "\n";
  }
  return text + "intr 0\nctxt 0\n";
}

// Builds one CpuTimes with the columns that matter for utilization.
CpuTimes Times(int cpu, std::uint64_t user, std::uint64_t system, std::uint64_t idle,
               std::uint64_t iowait = 0, std::uint64_t guest = 0) {
  CpuTimes t;
  t.cpu = cpu;
  t.user_ticks = user;
  t.system_ticks = system;
  t.idle_ticks = idle;
  t.iowait_ticks = iowait;
  t.guest_ticks = guest;
  return t;
}

// A fixture board copied to a temp dir, so that a test can advance /proc/stat between ticks.
class CpuCollectorTest : public ::testing::Test {
 protected:
  void Open() {
    auto fs = RootedFs::Open(sysfs_.path());
    ASSERT_TRUE(fs.ok()) << fs.status();
    fs_.emplace(std::move(*fs));
    collector_.emplace(*fs_);
  }

  void OpenBoard(std::string_view board) {
    sysfs_.CopyTree(edgemond::testing::FixturePath("devices/" + std::string(board)));
    Open();
  }

  std::vector<CpuTimes> ReadStat() {
    std::vector<CpuTimes> cpus;
    auto text = fs_->ReadFile("/proc/stat");
    EXPECT_TRUE(text.ok());
    EXPECT_TRUE(internal::ParseProcStat(*text, cpus).ok());
    return cpus;
  }

  // Writes /proc/stat with the aggregate line computed from the per-cpu lines.
  void WriteStat(std::vector<CpuTimes> cpus) {
    CpuTimes all;
    for (const CpuTimes& t : cpus) {
      all.user_ticks += t.user_ticks;
      all.system_ticks += t.system_ticks;
      all.idle_ticks += t.idle_ticks;
      all.iowait_ticks += t.iowait_ticks;
      all.guest_ticks += t.guest_ticks;
    }
    cpus.insert(cpus.begin(), all);
    sysfs_.Write("proc/stat", FormatProcStat(cpus));
  }

  std::vector<Sample> Tick() {
    clock_.Advance(std::chrono::seconds(1));
    at_ = clock_.WallNow();
    auto samples = collector_->Collect(at_);
    EXPECT_TRUE(samples.ok()) << samples.status();
    return samples.ok() ? std::move(*samples) : std::vector<Sample>();
  }

  // Just the utilization series of a tick.
  static std::vector<Sample> Utilization(std::vector<Sample> samples) {
    std::erase_if(samples,
                  [](const Sample& s) { return s.desc->name != "edgemond_cpu_utilization_ratio"; });
    return samples;
  }

  edgemond::testing::FakeSysfs sysfs_;
  edgemond::testing::FakeClock clock_;
  WallTime at_;  // The time of the last Tick().
  std::optional<RootedFs> fs_;
  std::optional<CpuCollector> collector_;
};

std::string Util(std::string_view cpu) {
  return "edgemond_cpu_utilization_ratio{cpu=\"" + std::string(cpu) + "\"}";
}
std::string Series(std::string_view name, std::string_view cpu) {
  return std::string(name) + "{cpu=\"" + std::string(cpu) + "\"}";
}

TEST_F(CpuCollectorTest, X86DesktopReportsEveryCoreAndItsFrequency) {
  OpenBoard("x86-desktop");
  const std::vector<Sample> first = Tick();
  Wants want;
  const double cur_khz[] = {800021, 3600000, 4199878, 1200045, 899123, 3900002, 801234, 2500000};
  for (int cpu = 0; cpu < 8; ++cpu) {
    const std::string c = std::to_string(cpu);
    want.emplace(Util(c), Missing("first sample"));
    want.emplace(Series("edgemond_cpu_frequency_hertz", c), cur_khz[cpu] * 1000);
    want.emplace(Series("edgemond_cpu_frequency_min_hertz", c), 800e6);
    want.emplace(Series("edgemond_cpu_frequency_max_hertz", c), 4200e6);
    want.emplace(Series("edgemond_cpu_frequency_hardware_max_hertz", c), 4200e6);
    want.emplace("edgemond_cpu_governor_info{cpu=\"" + c + "\",governor=\"powersave\"}", 1);
  }
  want.emplace(Util("all"), Missing("first sample"));
  ExpectSamples(first, want, at_, &*collector_);

  // One second later every core did 100 ticks: cpu k was busy 10*k of them (split user/system),
  // idle the rest (some of it waiting for I/O, which counts as idle).
  std::vector<CpuTimes> stat = ReadStat();
  stat.erase(stat.begin());  // WriteStat recomputes the aggregate.
  Wants second;
  for (CpuTimes& t : stat) {
    const std::uint64_t busy = 10 * static_cast<std::uint64_t>(t.cpu);
    t.user_ticks += busy / 2;
    t.system_ticks += busy - busy / 2;
    t.idle_ticks += 100 - busy - 5;
    t.iowait_ticks += 5;
    second.emplace(Util(std::to_string(t.cpu)), static_cast<double>(busy) / 100.0);
  }
  second.emplace(Util("all"), (0 + 10 + 20 + 30 + 40 + 50 + 60 + 70) / 800.0);
  WriteStat(stat);
  ExpectSamples(Utilization(Tick()), second, at_);
}

TEST_F(CpuCollectorTest, JetsonOrinReportsOfflineCoresAsOffline) {
  OpenBoard("jetson-orin-jp6");
  Wants want;
  for (int cpu = 0; cpu < 4; ++cpu) {
    const std::string c = std::to_string(cpu);
    want.emplace(Util(c), Missing("first sample"));
    want.emplace(Series("edgemond_cpu_frequency_hertz", c), 729.6e6);
    want.emplace(Series("edgemond_cpu_frequency_min_hertz", c), 729.6e6);
    want.emplace(Series("edgemond_cpu_frequency_max_hertz", c), 960e6);
    want.emplace(Series("edgemond_cpu_frequency_hardware_max_hertz", c), 1510.4e6);
    want.emplace("edgemond_cpu_governor_info{cpu=\"" + c + "\",governor=\"schedutil\"}", 1);
  }
  for (const char* c : {"4", "5"}) {
    want.emplace(Util(c), Missing("offline"));
    want.emplace(Series("edgemond_cpu_frequency_hertz", c), Missing("offline"));
  }
  want.emplace(Util("all"), Missing("first sample"));
  ExpectSamples(Tick(), want, at_, &*collector_);

  std::vector<CpuTimes> stat = ReadStat();
  stat.erase(stat.begin());
  for (CpuTimes& t : stat) {
    t.user_ticks += 25;
    t.idle_ticks += 75;
  }
  WriteStat(stat);
  ExpectSamples(Utilization(Tick()),
                Wants{{Util("0"), 0.25},
                      {Util("1"), 0.25},
                      {Util("2"), 0.25},
                      {Util("3"), 0.25},
                      {Util("4"), Missing("offline")},
                      {Util("5"), Missing("offline")},
                      {Util("all"), 0.25}},
                at_);
}

// A minimal two-core machine without cpufreq, as in a VM.
class TwoCoreTest : public CpuCollectorTest {
 protected:
  void SetUp() override {
    sysfs_.Write("sys/devices/system/cpu/present", "0-1\n");
    sysfs_.Write("sys/devices/system/cpu/online", "0-1\n");
    sysfs_.Write("sys/devices/system/cpu/cpu1/online", "1\n");
    Open();
  }
  void SetOnline(bool cpu1_online) {
    sysfs_.Write("sys/devices/system/cpu/online", cpu1_online ? "0-1\n" : "0\n");
    sysfs_.Write("sys/devices/system/cpu/cpu1/online", cpu1_online ? "1\n" : "0\n");
  }
};

TEST_F(TwoCoreTest, FirstSampleHasNoValueAndNoCpufreqIsNotAnError) {
  WriteStat({Times(0, 100, 50, 850), Times(1, 200, 100, 700)});
  ExpectSamples(Tick(),
                Wants{{Util("0"), Missing("first sample")},
                      {Util("1"), Missing("first sample")},
                      {Util("all"), Missing("first sample")}},
                at_, &*collector_);
}

TEST_F(TwoCoreTest, UtilizationIsTheBusyShareOfTheInterval) {
  WriteStat({Times(0, 100, 50, 850, 10), Times(1, 200, 100, 700)});
  Tick();
  // cpu0: 30 user + 10 system busy, 50 idle + 10 iowait idle. cpu1: all 100 ticks busy.
  WriteStat({Times(0, 130, 60, 900, 20), Times(1, 290, 110, 700)});
  ExpectSamples(Tick(), Wants{{Util("0"), 0.4}, {Util("1"), 1.0}, {Util("all"), 140.0 / 200.0}},
                at_);
}

TEST_F(TwoCoreTest, GuestTimeIsNotCountedTwice) {
  WriteStat({Times(0, 100, 0, 900, 0, 40), Times(1, 100, 0, 900)});
  Tick();
  // 100 ticks of user time, all of it running a guest: the kernel adds it to both user and guest.
  WriteStat({Times(0, 200, 0, 1000, 0, 140), Times(1, 100, 0, 1100)});
  ExpectSamples(Tick(), Wants{{Util("0"), 0.5}, {Util("1"), 0.0}, {Util("all"), 0.25}}, at_);
}

TEST_F(TwoCoreTest, CountersThatGoBackwardsAreClampedAtZero) {
  WriteStat({Times(0, 100, 0, 800, 100), Times(1, 100, 0, 900)});
  Tick();
  // iowait went backwards by 30 (proc(5) allows it); the other columns moved 50 + 50.
  WriteStat({Times(0, 150, 0, 850, 70), Times(1, 150, 0, 950)});
  ExpectSamples(Tick(), Wants{{Util("0"), 0.5}, {Util("1"), 0.5}, {Util("all"), 0.5}}, at_);
}

TEST_F(TwoCoreTest, NoTicksElapsedIsMissingNotZero) {
  WriteStat({Times(0, 100, 0, 900), Times(1, 100, 0, 900)});
  Tick();
  ExpectSamples(Tick(),
                Wants{{Util("0"), Missing("no ticks elapsed")},
                      {Util("1"), Missing("no ticks elapsed")},
                      {Util("all"), Missing("no ticks elapsed")}},
                at_);
}

TEST_F(TwoCoreTest, ACoreThatGoesOfflineAndBackIsRebaselined) {
  WriteStat({Times(0, 100, 0, 900), Times(1, 100, 0, 900)});
  Tick();
  SetOnline(false);
  WriteStat({Times(0, 150, 0, 950)});  // /proc/stat lists online cores only.
  ExpectSamples(Tick(),
                Wants{{Util("0"), 0.5}, {Util("1"), Missing("offline")}, {Util("all"), 0.5}}, at_);
  // Back online with counters that restarted lower: no delta against the old baseline.
  SetOnline(true);
  WriteStat({Times(0, 200, 0, 1000), Times(1, 10, 0, 20)});
  ExpectSamples(Tick(),
                Wants{{Util("0"), 0.5}, {Util("1"), Missing("first sample")}, {Util("all"), 0.5}},
                at_);
  WriteStat({Times(0, 200, 0, 1100), Times(1, 85, 0, 45)});
  ExpectSamples(Tick(), Wants{{Util("0"), 0.0}, {Util("1"), 0.75}, {Util("all"), 75.0 / 200.0}},
                at_);
}

TEST_F(TwoCoreTest, WithoutTheOnlineListPerCoreFilesDecideAndAbsentMeansOnline) {
  sysfs_.Remove("sys/devices/system/cpu/online");
  sysfs_.Write("sys/devices/system/cpu/cpu1/online", "0\n");  // cpu0 has no such file.
  WriteStat({Times(0, 100, 0, 900)});
  ExpectSamples(Tick(),
                Wants{{Util("0"), Missing("first sample")},
                      {Util("1"), Missing("offline")},
                      {Util("all"), Missing("first sample")}},
                at_);
}

TEST_F(TwoCoreTest, PresentCoresThatNeverCameOnlineAreReported) {
  sysfs_.Write("sys/devices/system/cpu/present", "0-3\n");
  WriteStat({Times(0, 100, 0, 900), Times(1, 100, 0, 900)});
  ExpectSamples(Tick(),
                Wants{{Util("0"), Missing("first sample")},
                      {Util("1"), Missing("first sample")},
                      {Util("2"), Missing("offline")},
                      {Util("3"), Missing("offline")},
                      {Util("all"), Missing("first sample")}},
                at_);
}

TEST_F(TwoCoreTest, UnreadableProcStatFailsTheCollector) {
  const auto missing = collector_->Collect(clock_.WallNow());
  ASSERT_FALSE(missing.ok());
  EXPECT_TRUE(missing.status().IsNotFound());
  sysfs_.Write("proc/stat", "intr 1 2 3\n");
  EXPECT_EQ(collector_->Collect(at_).status().code(), StatusCode::kCorruption);
}

TEST_F(TwoCoreTest, AnUnreadableFrequencyIsMissingWithTheReason) {
  const std::string policy = "sys/devices/system/cpu/cpufreq/policy0";
  for (const char* cpu : {"cpu0", "cpu1"}) {
    sysfs_.Symlink(std::string("sys/devices/system/cpu/") + cpu + "/cpufreq", "../cpufreq/policy0");
  }
  sysfs_.Mkdir(policy + "/scaling_cur_freq");  // A directory where the file should be.
  sysfs_.Write(policy + "/scaling_min_freq", "");
  sysfs_.Write(policy + "/scaling_max_freq", "2000000\n");
  sysfs_.Write(policy + "/cpuinfo_max_freq", "2000000\n");
  sysfs_.Write(policy + "/scaling_governor", "performance\n");
  WriteStat({Times(0, 100, 0, 900), Times(1, 100, 0, 900)});
  Wants want{{Util("0"), Missing("first sample")},
             {Util("1"), Missing("first sample")},
             {Util("all"), Missing("first sample")}};
  for (const char* c : {"0", "1"}) {
    want.emplace(Series("edgemond_cpu_frequency_hertz", c), Missing("EISDIR: Is a directory"));
    want.emplace(Series("edgemond_cpu_frequency_min_hertz", c), Missing("empty file"));
    want.emplace(Series("edgemond_cpu_frequency_max_hertz", c), 2e9);
    want.emplace(Series("edgemond_cpu_frequency_hardware_max_hertz", c), 2e9);
    want.emplace(
        "edgemond_cpu_governor_info{cpu=\"" + std::string(c) + "\",governor=\"performance\"}", 1);
  }
  ExpectSamples(Tick(), want, at_, &*collector_);
}

}  // namespace
}  // namespace edgemond::collectors
