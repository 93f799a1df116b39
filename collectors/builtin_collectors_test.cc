#include "collectors/builtin_collectors.h"

#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>

#include "collectors/collector_runner.h"
#include "core/text.h"
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
  const auto collectors = MakeBuiltinCollectors(fs, CollectorsConfig{});
  EXPECT_EQ(NamesOf(collectors), (std::vector<std::string>{"cpu", "memory", "thermal", "hwmon"}));
  const std::vector<std::string_view> names = BuiltinCollectorNames();
  EXPECT_EQ(std::vector<std::string>(names.begin(), names.end()), NamesOf(collectors));
}

TEST(BuiltinCollectorsTest, DisabledCollectorsAreNotBuilt) {
  const RootedFs fs = OpenRoot("/");
  CollectorsConfig config;
  config.collectors["hwmon"].enabled = false;
  config.collectors["cpu"].enabled = true;
  EXPECT_EQ(NamesOf(MakeBuiltinCollectors(fs, config)),
            (std::vector<std::string>{"cpu", "memory", "thermal"}));
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

// Every built-in collector runs cleanly on every fixture board.
class BoardTest : public ::testing::TestWithParam<const char*> {};

TEST_P(BoardTest, EveryCollectorSucceeds) {
  const RootedFs fs =
      OpenRoot(edgemond::testing::FixturePath(std::string("devices/") + GetParam()));
  edgemond::testing::FakeClock clock;
  CollectorRunner runner(MakeBuiltinCollectors(fs, CollectorsConfig{}), clock);
  for (int tick = 0; tick < 3; ++tick) {
    const TickReport report = runner.RunOnce(clock.WallNow());
    EXPECT_TRUE(report.events.empty())
        << report.events[0].collector << ": " << report.events[0].error;
    for (const CollectorState& state : runner.states()) {
      EXPECT_TRUE(state.ok) << state.collector << ": " << state.last_error;
    }
    std::set<std::string> keys;
    for (const Sample& sample : report.samples) {
      EXPECT_TRUE(keys.insert(SeriesKey(sample)).second) << "twice: " << SeriesKey(sample);
    }
    clock.Advance(std::chrono::seconds(1));
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, BoardTest, ::testing::Values("x86-desktop", "jetson-orin-jp6"));

}  // namespace
}  // namespace edgemond::collectors
