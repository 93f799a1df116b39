#include "collectors/builtin_collectors.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "collectors/collector_runner.h"
#include "collectors/collector_test_util.h"
#include "core/text.h"
#include "tests/testing/child_process.h"
#include "tests/testing/fake_clock.h"
#include "tests/testing/temp_dir.h"

namespace edgemond::collectors {
namespace {

std::vector<std::string> NamesOf(const std::vector<std::unique_ptr<Collector>>& collectors) {
  std::vector<std::string> names;
  for (const auto& collector : collectors) names.emplace_back(collector->name());
  return names;
}

RootedFs OpenRoot(const std::string& path) {
  auto fs = RootedFs::Open(path);
  EXPECT_TRUE(fs.ok()) << fs.status();
  return std::move(fs).value();
}

TEST(BuiltinCollectorsTest, AllAreEnabledByDefaultInRunOrder) {
  const RootedFs fs = OpenRoot("/");
  edgemond::testing::FakeClock clock;
  const auto collectors = MakeBuiltinCollectors(fs, CollectorsConfig{}, clock);
  EXPECT_EQ(NamesOf(collectors),
            (std::vector<std::string>{"cpu", "memory", "thermal", "hwmon", "power_rail", "rapl",
                                      "fan", "jetson_gpu", "amd_gpu", "nvidia_gpu", "emc",
                                      "power_mode", "throttle"}));
  const std::vector<std::string_view> names = BuiltinCollectorNames();
  EXPECT_EQ(std::vector<std::string>(names.begin(), names.end()), NamesOf(collectors));
}

TEST(BuiltinCollectorsTest, DisabledCollectorsAreNotBuilt) {
  const RootedFs fs = OpenRoot("/");
  edgemond::testing::FakeClock clock;
  CollectorsConfig config;
  for (const std::string_view name : BuiltinCollectorNames()) {
    config.collectors[std::string(name)].enabled = false;
  }
  config.collectors["cpu"].enabled = true;
  config.collectors["nvidia_gpu"].enabled = true;
  EXPECT_EQ(NamesOf(MakeBuiltinCollectors(fs, config, clock)),
            (std::vector<std::string>{"cpu", "nvidia_gpu"}));
  EXPECT_TRUE(ValidateCollectorsConfig(config).ok());
}

TEST(BuiltinCollectorsTest, UnknownCollectorNamesAreRejected) {
  CollectorsConfig config;
  config.collectors["gpu_typo"].enabled = true;
  const Status status = ValidateCollectorsConfig(config);
  EXPECT_TRUE(status.IsInvalidArgument());
  EXPECT_NE(status.message().find("\"gpu_typo\""), std::string_view::npos) << status;
  EXPECT_NE(status.message().find("hwmon"), std::string_view::npos) << status;
}

// A collector builds a series' labels once, when it finds the series; every later sample of the
// series shares them (core/sample.h: SeriesLabels), so a tick copies no label strings.
TEST(BuiltinCollectorsTest, EachSeriesKeepsItsLabelsAcrossTicks) {
  const std::string boards = edgemond::testing::FixturePath("devices");
  for (const char* board : {"jetson-orin-jp6", "jetson-xavier-nx-jp5", "jetson-nano-jp4",
                            "raspberry-pi-4", "x86-desktop", "x86-nvidia"}) {
    SCOPED_TRACE(board);
    const RootedFs fs = OpenRoot(boards + "/" + board);
    edgemond::testing::FakeClock clock;
    CollectorsConfig config;
    config.collectors["nvidia_gpu"].enabled = false;  // NVML reads the host, not the tree.
    CollectorRunner runner(MakeBuiltinCollectors(fs, config, clock), clock);
    const TickReport first = runner.RunOnce(clock.WallNow());
    clock.Advance(std::chrono::seconds(1));
    const TickReport second = runner.RunOnce(clock.WallNow());
    ASSERT_EQ(first.samples.size(), second.samples.size());
    std::size_t labelled = 0;
    for (std::size_t i = 0; i < first.samples.size(); ++i) {
      const Sample& a = first.samples[i];
      const Sample& b = second.samples[i];
      ASSERT_EQ(a.desc, b.desc);
      ASSERT_EQ(a.labels, b.labels) << SeriesKey(a);
      if (a.labels.empty()) continue;
      ++labelled;
      EXPECT_EQ(&a.labels.get(), &b.labels.get()) << SeriesKey(a) << " was built again";
    }
    EXPECT_GT(labelled, 0u);
  }
}

// What a tick says, series by series, its own timings aside.
std::map<std::string, std::string> Contents(const TickReport& report) {
  std::map<std::string, std::string> out;
  for (const Sample& sample : report.samples) {
    if (sample.desc->name == std::string_view("edgemond_collector_duration_seconds")) continue;
    out[SeriesKey(sample)] = testing::Describe(sample);
  }
  return out;
}

// The daemon's runner reads a file that several collectors poll once per tick
// (internal/tick_files.h); that must change nothing they report, on any board.
TEST(BuiltinRunnerTest, SharingFilesChangesNothingCollectorsReport) {
  for (const char* board : {"jetson-orin-jp6", "jetson-xavier-nx-jp5", "jetson-nano-jp4",
                            "raspberry-pi-4", "x86-desktop", "x86-nvidia"}) {
    SCOPED_TRACE(board);
    const RootedFs fs = OpenRoot(edgemond::testing::FixturePath(std::string("devices/") + board));
    edgemond::testing::FakeClock clock;
    CollectorsConfig config;
    config.collectors["nvidia_gpu"].enabled = false;  // NVML reads the host, not the tree.
    const std::unique_ptr<CollectorRunner> shared = MakeBuiltinRunner(fs, config, clock);
    CollectorRunner own(MakeBuiltinCollectors(fs, config, clock), clock);
    for (int tick = 0; tick < 3; ++tick) {
      const auto want = Contents(own.RunOnce(clock.WallNow()));
      EXPECT_EQ(Contents(shared->RunOnce(clock.WallNow())), want);
      EXPECT_GT(want.size(), 10u);
      clock.Advance(std::chrono::seconds(1));
    }
  }
}

// A shared file is read again at every tick: collectors that share it see the device change.
TEST(BuiltinRunnerTest, SharedFilesAreReadAgainAtEveryTick) {
  edgemond::testing::FakeSysfs sysfs;
  sysfs.CopyTree(edgemond::testing::FixturePath("devices/jetson-orin-jp6"));
  const RootedFs fs = OpenRoot(sysfs.path());
  edgemond::testing::FakeClock clock;
  const std::unique_ptr<CollectorRunner> runner = MakeBuiltinRunner(fs, CollectorsConfig{}, clock);
  const std::string ina = "sys/devices/platform/bus@0/c240000.i2c/i2c-1/1-0040/hwmon/hwmon1/";
  const std::string hwmon_volts =
      SeriesKey("edgemond_hwmon_voltage_volts", Labels{{"chip", "i2c/1-0040"},
                                                       {"chip_name", "ina3221"},
                                                       {"sensor", "in1"},
                                                       {"label", "VDD_IN"}});
  const std::string cpu_max = SeriesKey("edgemond_cpu_frequency_max_hertz", Labels{{"cpu", "0"}});
  const std::string cpu_cap =
      SeriesKey("edgemond_throttled", Labels{{"component", "cpu"}, {"reason", "frequency_cap"}});

  auto tick = Contents(runner->RunOnce(clock.WallNow()));
  EXPECT_EQ(tick[hwmon_volts], "5.048");
  EXPECT_EQ(tick["edgemond_power_input_volts"], "5.048");
  EXPECT_EQ(tick[cpu_max], "960000000");
  EXPECT_EQ(tick[cpu_cap], "1");
  EXPECT_EQ(tick["edgemond_jetson_clocks_active"], "0");

  sysfs.Write(ina + "in1_input", "5125\n");
  sysfs.Write("sys/devices/system/cpu/cpufreq/policy0/scaling_max_freq", "1510400\n");
  clock.Advance(std::chrono::seconds(1));
  tick = Contents(runner->RunOnce(clock.WallNow()));
  EXPECT_EQ(tick[hwmon_volts], "5.125");
  EXPECT_EQ(tick["edgemond_power_input_volts"], "5.125");
  EXPECT_EQ(tick[cpu_max], "1510400000");
  EXPECT_EQ(tick[cpu_cap], "0");
}

TEST(BuiltinCollectorsTest, MetricNamesFollowTheConventions) {
  std::set<std::string_view> names;
  for (const MetricDesc* desc : AllMetricDescs()) {
    const std::string_view name = desc->name;
    EXPECT_TRUE(names.insert(name).second) << "described twice: " << name;
    EXPECT_TRUE(StartsWith(name, "edgemond_")) << name;
    EXPECT_FALSE(desc->help.empty()) << name;
    EXPECT_FALSE(EndsWith(desc->help, ".")) << name;
    // Counters end in _total; a unit, when there is one, is part of the name.
    EXPECT_EQ(desc->type == MetricType::kCounter, EndsWith(name, "_total")) << name;
    if (!desc->unit.empty()) {
      EXPECT_NE(name.find("_" + std::string(desc->unit)), std::string_view::npos) << name;
    }
    for (const char c : name) {
      EXPECT_TRUE((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_') << name;
    }
  }
  EXPECT_TRUE(names.count("edgemond_collector_success"));
  EXPECT_TRUE(names.count("edgemond_hwmon_pwm_ratio"));
}

TEST(BuiltinCollectorsTest, EveryMetricHasARowInDocsMetrics) {
  std::ifstream file(edgemond::testing::SourceDir() + "/docs/metrics.md");
  ASSERT_TRUE(file.good()) << "docs/metrics.md is missing";
  std::stringstream text;
  text << file.rdbuf();
  for (const MetricDesc* desc : AllMetricDescs()) {
    const std::string row = "| `" + std::string(desc->name) + "` |";
    EXPECT_NE(text.str().find(row), std::string::npos)
        << desc->name << " has no row in docs/metrics.md";
  }
}

// Every built-in collector runs cleanly on every fixture board: the ones whose hardware the board
// has succeed at every tick, the others report kNotFound (absent hardware), nothing else.
struct Board {
  const char* name;
  std::set<std::string> present;  // Collectors whose hardware the board has.
  bool fake_nvml = false;         // Runs with the fake NVML in the board's state.
};

void PrintTo(const Board& board, std::ostream* os) { *os << board.name; }

class BoardTest : public ::testing::TestWithParam<Board> {};

TEST_P(BoardTest, CollectorsWithHardwareSucceedAndTheOthersAreNotFound) {
  const Board& board = GetParam();
  const RootedFs fs =
      OpenRoot(edgemond::testing::FixturePath(std::string("devices/") + board.name));
  edgemond::testing::FakeClock clock;
  CollectorsConfig config;
  // Never the host's own NVML: it would describe this machine, not the board.
  config.nvml_library =
      board.fake_nvml ? edgemond::testing::FakeNvmlPath() : "/nonexistent/libnvidia-ml.so.1";
  const std::string state =
      edgemond::testing::FixturePath(std::string("nvml/") + board.name + ".state");
  ASSERT_EQ(setenv("EDGEMOND_FAKE_NVML_STATE", state.c_str(), 1), 0);
  CollectorRunner runner(MakeBuiltinCollectors(fs, config, clock), clock);
  for (int tick = 0; tick < 3; ++tick) {
    const TickReport report = runner.RunOnce(clock.WallNow());
    for (const CollectorState& state_of : runner.states()) {
      if (board.present.count(state_of.collector)) {
        EXPECT_EQ(state_of.health, CollectorHealth::kOk)
            << state_of.collector << ": " << state_of.last_error;
      } else {
        EXPECT_EQ(state_of.health, CollectorHealth::kNoHardware);
        EXPECT_TRUE(state_of.last_error.IsNotFound())
            << state_of.collector << " should find no hardware on " << board.name << ": "
            << state_of.last_error;
      }
    }
    std::set<std::string> keys;
    for (const Sample& sample : report.samples) {
      EXPECT_TRUE(keys.insert(SeriesKey(sample)).second) << "twice: " << SeriesKey(sample);
      EXPECT_EQ(sample.value.has_value(), sample.missing_reason.empty()) << SeriesKey(sample);
    }
    clock.Advance(std::chrono::seconds(1));
  }
  ASSERT_EQ(unsetenv("EDGEMOND_FAKE_NVML_STATE"), 0);
}

const std::set<std::string> kEverywhere = {"cpu", "memory", "throttle"};

std::set<std::string> With(std::initializer_list<const char*> more) {
  std::set<std::string> names = kEverywhere;
  names.insert(more.begin(), more.end());
  return names;
}

INSTANTIATE_TEST_SUITE_P(
    Fixtures, BoardTest,
    ::testing::Values(Board{"x86-desktop", With({"thermal", "hwmon", "rapl", "amd_gpu"})},
                      Board{"x86-nvidia", With({"hwmon", "nvidia_gpu"}), /*fake_nvml=*/true},
                      Board{"raspberry-pi-4", With({"thermal", "hwmon"})},
                      Board{"jetson-nano-jp4", With({"thermal", "power_rail", "fan", "jetson_gpu",
                                                     "emc", "power_mode"})},
                      Board{"jetson-xavier-nx-jp5", With({"thermal", "hwmon", "power_rail", "fan",
                                                          "jetson_gpu", "emc", "power_mode"})},
                      Board{"jetson-orin-jp6", With({"thermal", "hwmon", "power_rail", "fan",
                                                     "jetson_gpu", "emc", "power_mode"})}),
    [](const ::testing::TestParamInfo<Board>& param) {
      std::string name = param.param.name;
      for (char& c : name) {
        if (c == '-') c = '_';
      }
      return name;
    });

}  // namespace
}  // namespace edgemond::collectors
