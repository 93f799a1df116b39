// The daemon's tick and reload, driven by a FakeClock on a fixture board: the real collectors,
// store, alert evaluator, history and HTTP server (over loopback), but no event loop, so every
// duration is the test's to choose.

#include "daemon/daemon.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/testing/fake_clock.h"
#include "tests/testing/http_client.h"
#include "tests/testing/temp_dir.h"

namespace edgemond::daemon {
namespace {

using json = nlohmann::json;
using std::chrono::seconds;

// A rule on the Orin fixture's CPU zone (45.875 °C): warmer than 40 °C for 3 s.
alerts::Rule CpuWarm() {
  alerts::Rule rule;
  rule.name = "cpu_warm";
  rule.selector.name = "edgemond_thermal_zone_celsius";
  rule.selector.matchers = {{"type", LabelMatcher::Op::kEqual, "cpu-thermal"}};
  rule.trigger = 40;
  rule.clear = 35;
  rule.for_duration = seconds(3);
  rule.source = "test";
  return rule;
}

class DaemonTest : public ::testing::Test {
 protected:
  void SetUp() override {
    config_.root = testing::FixturePath("devices/jetson-orin-jp6");
    config_.storage.path = dir_.Join("edgemond.db");
    config_.http.listen = "127.0.0.1:0";
    config_.alerts.sink = "stderr";
    config_.alerts.rules = {CpuWarm()};
    auto daemon = Daemon::Create(config_, clock_);
    ASSERT_TRUE(daemon.ok()) << daemon.status().ToString();
    daemon_ = std::move(daemon).value();
    const std::string url = daemon_->url();
    port_ = static_cast<std::uint16_t>(std::stoi(url.substr(url.rfind(':') + 1)));
  }

  // One collection `step` after the last.
  void TickAfter(std::chrono::nanoseconds step) {
    clock_.Advance(step);
    daemon_->Tick();
  }

  testing::HttpReply Get(const std::string& target) { return testing::HttpGet(port_, target); }
  json GetJson(const std::string& target) {
    const auto reply = Get(target);
    EXPECT_EQ(reply.status, 200) << target << ": " << reply.body;
    return json::parse(reply.body, nullptr, /*allow_exceptions=*/false);
  }
  json Alerts() { return GetJson("/api/v1/alerts")["data"]["alerts"]; }
  json History() { return GetJson("/api/v1/alerts/history")["data"]["transitions"]; }

  testing::TempDir dir_;
  testing::FakeClock clock_;
  Config config_;
  std::unique_ptr<Daemon> daemon_;
  std::uint16_t port_ = 0;
};

TEST_F(DaemonTest, EachTickCollectsEvaluatesAndPublishesOnTheClocksTime) {
  EXPECT_EQ(Get("/readyz").status, 503);  // No collection yet.
  daemon_->Tick();
  EXPECT_EQ(Get("/readyz").status, 200);
  // The collection, the derived series and the alerts' own are published together.
  const std::string metrics = Get("/metrics").body;
  EXPECT_NE(metrics.find("edgemond_thermal_zone_celsius{zone=\"cpu-thermal\",type=\"cpu-thermal\"} "
                         "45.875\n"),
            std::string::npos)
      << metrics;
  EXPECT_NE(metrics.find("edgemond_alert_firing{alert=\"cpu_warm\",severity=\"warning\"} 0\n"),
            std::string::npos);
  ASSERT_EQ(Alerts().size(), 1u);
  EXPECT_EQ(Alerts()[0]["state"], "pending");

  // `for` is measured on the daemon's clock: firing at the third second, not before.
  TickAfter(seconds(1));
  TickAfter(seconds(1));
  EXPECT_EQ(Alerts()[0]["state"], "pending");
  EXPECT_TRUE(History().empty());
  TickAfter(seconds(1));
  EXPECT_EQ(Alerts()[0]["state"], "firing");
  EXPECT_EQ(Alerts()[0]["firing_since"], 1767225603);
  const json history = History();
  ASSERT_EQ(history.size(), 1u);
  EXPECT_EQ(history[0]["state"], "firing");
  EXPECT_EQ(history[0]["at"], 1767225603);
  EXPECT_EQ(history[0]["active_since"], 1767225600);
  EXPECT_NE(Get("/metrics")
                .body.find("edgemond_alert_firing{alert=\"cpu_warm\",severity=\"warning\"} 1\n"),
            std::string::npos);

  // No collection for longer than the liveness allowance (5 intervals, at least 10 s): not alive.
  clock_.Advance(seconds(11));
  EXPECT_EQ(Get("/healthz").status, 503);
  daemon_->Tick();
  EXPECT_EQ(Get("/healthz").status, 200);
}

TEST_F(DaemonTest, AReloadAppliesRulesAndTheIntervalAndKeepsRestartOnlyKeys) {
  for (int i = 0; i < 4; ++i) TickAfter(seconds(1));
  ASSERT_EQ(Alerts()[0]["state"], "firing");

  Config next = config_;
  next.collection.interval_seconds = 5;
  next.storage.path = dir_.Join("other.db");  // Needs a restart: kept.
  alerts::Rule retuned = CpuWarm();
  retuned.name = "cpu_hot";
  retuned.trigger = 90;
  retuned.clear = 85;
  next.alerts.rules = {retuned};
  daemon_->ApplyConfig(next);

  // The removed rule's alert resolves at once, in the history; the new rule does not fire.
  EXPECT_TRUE(Alerts().empty());
  const json history = History();
  ASSERT_EQ(history.size(), 2u);
  EXPECT_EQ(history[0]["state"], "resolved");
  EXPECT_EQ(history[0]["reason"], "rule_removed");
  const json rules = GetJson("/api/v1/alerts/rules")["data"]["rules"];
  ASSERT_EQ(rules.size(), 1u);
  EXPECT_EQ(rules[0]["name"], "cpu_hot");

  // The new interval: the liveness allowance is now 5 x 5 s.
  TickAfter(seconds(5));
  clock_.Advance(seconds(20));
  EXPECT_EQ(Get("/healthz").status, 200);
  clock_.Advance(seconds(6));
  EXPECT_EQ(Get("/healthz").status, 503);

  // The database stayed where it was opened.
  EXPECT_FALSE(std::filesystem::exists(dir_.Join("other.db")));
  EXPECT_TRUE(std::filesystem::exists(dir_.Join("edgemond.db")));
}

// The wall clock stepped back an hour, then forward a day, while collecting every 10 s: every
// sample is kept and a query returns them in time order, and retention deletes nothing early.
TEST_F(DaemonTest, ClockStepsNeitherMisorderSamplesNorRushRetention) {
  daemon_.reset();
  config_.storage.path = dir_.Join("steps.db");
  config_.storage.flush_interval_seconds = 10;
  config_.storage.retention_days = 1;
  auto daemon = Daemon::Create(config_, clock_);
  ASSERT_TRUE(daemon.ok()) << daemon.status().ToString();
  daemon_ = std::move(daemon).value();
  const std::string url = daemon_->url();
  port_ = static_cast<std::uint16_t>(std::stoi(url.substr(url.rfind(':') + 1)));

  const std::int64_t start = 1767225600;  // The fake clock's wall time.
  // Every stored timestamp of the memory total over the first 90 minutes of wall time.
  const auto stored = [&] {
    const json reply =
        GetJson("/api/v1/query?series=edgemond_memory_total_bytes&from=" + std::to_string(start) +
                "&to=" + std::to_string(start + 5400));
    std::vector<double> times;
    for (const json& point : reply["data"]["series"][0]["points"]) times.push_back(point[0]);
    return times;
  };
  const auto ascending = [](const std::vector<double>& times) {
    return std::adjacent_find(times.begin(), times.end(), std::greater_equal<>()) == times.end();
  };

  daemon_->Tick();
  for (int i = 0; i < 540; ++i) TickAfter(seconds(10));  // 90 minutes.
  clock_.StepWall(-seconds(3600 - 3));  // Back an hour, 3 s off the earlier ticks' grid.
  for (int i = 0; i < 180; ++i) TickAfter(seconds(10));  // 30 minutes over the same wall time.
  std::vector<double> times = stored();
  EXPECT_EQ(times.size(), 541u + 180u);
  EXPECT_TRUE(ascending(times));

  // Forward a day: with a raw retention of one day, everything above would be due at once.
  clock_.StepWall(std::chrono::hours(24));
  for (int i = 0; i < 60; ++i) TickAfter(seconds(10));
  times = stored();
  EXPECT_EQ(times.size(), 541u + 180u);
  EXPECT_TRUE(ascending(times));

  // Once the new time has held for a day, retention follows it (as soon as the rollups, which
  // build a bounded number of windows per flush, have summarized what it deletes).
  clock_.Advance(std::chrono::hours(24));
  int ticks = 0;
  for (; ticks < 360 && !stored().empty(); ++ticks) TickAfter(seconds(10));
  EXPECT_TRUE(stored().empty());
  EXPECT_GT(ticks, 0);
}

}  // namespace
}  // namespace edgemond::daemon
