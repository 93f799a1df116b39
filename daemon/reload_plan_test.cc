#include "daemon/reload_plan.h"

#include <gtest/gtest.h>

namespace edgemond::daemon {
namespace {

alerts::Rule MakeRule(const std::string& name, double trigger) {
  alerts::Rule rule;
  rule.name = name;
  rule.selector.name = "edgemond_thermal_zone_celsius";
  rule.trigger = trigger;
  rule.clear = trigger - 5;
  return rule;
}

TEST(ReloadPlanTest, TheSameConfigurationChangesNothing) {
  Config running;
  running.alerts.rules = {MakeRule("hot", 85)};
  const ReloadPlan plan = PlanReload(running, running);
  EXPECT_TRUE(plan.kept.empty());
  EXPECT_FALSE(plan.log_level || plan.interval || plan.collectors || plan.flush_interval ||
               plan.http || plan.http_listen || plan.alert_sink);
  EXPECT_EQ(plan.rules_added + plan.rules_changed + plan.rules_removed, 0u);
}

TEST(ReloadPlanTest, EachLiveSectionIsAppliedOnItsOwn) {
  const Config running;
  Config next = running;
  next.collection.interval_seconds = 0.5;
  ReloadPlan plan = PlanReload(running, next);
  EXPECT_TRUE(plan.interval);
  EXPECT_FALSE(plan.collectors || plan.http || plan.log_level || plan.flush_interval);
  EXPECT_EQ(plan.next.collection.interval_seconds, 0.5);

  next = running;
  next.collectors.collectors["hwmon"].enabled = false;
  plan = PlanReload(running, next);
  EXPECT_TRUE(plan.collectors);
  EXPECT_FALSE(plan.interval || plan.http);

  next = running;
  next.http.bearer_token = "secret";
  plan = PlanReload(running, next);
  EXPECT_TRUE(plan.http);
  EXPECT_FALSE(plan.http_listen);  // The same socket serves the new settings.
  next.http.listen = "127.0.0.1:9000";
  EXPECT_TRUE(PlanReload(running, next).http_listen);

  next = running;
  next.log_level = "debug";
  next.storage.flush_interval_seconds = 10;
  next.alerts.sink = "stderr";
  plan = PlanReload(running, next);
  EXPECT_TRUE(plan.log_level && plan.flush_interval && plan.alert_sink);
  EXPECT_FALSE(plan.interval || plan.collectors || plan.http);
}

TEST(ReloadPlanTest, KeysThatNeedARestartKeepTheirRunningValues) {
  const Config running;
  Config next = running;
  next.storage.path = "/tmp/other.db";
  next.storage.retention_days = running.storage.retention_days + 1;
  next.collection.interval_seconds = 2;
  const ReloadPlan plan = PlanReload(running, next);
  ASSERT_EQ(plan.kept.size(), 2u);
  EXPECT_EQ(plan.kept[0].key, "storage.path");
  EXPECT_EQ(plan.kept[0].running, running.storage.path);
  EXPECT_EQ(plan.kept[0].wanted, "/tmp/other.db");
  EXPECT_EQ(plan.kept[1].key, "storage.retention_days");
  EXPECT_EQ(plan.next.storage.path, running.storage.path);
  EXPECT_EQ(plan.next.storage.retention_days, running.storage.retention_days);
  // What can change live still does.
  EXPECT_TRUE(plan.interval);
  EXPECT_EQ(plan.next.collection.interval_seconds, 2);
}

TEST(ReloadPlanTest, RulesAreCountedByName) {
  Config running;
  running.alerts.rules = {MakeRule("kept", 85), MakeRule("retuned", 85), MakeRule("gone", 85)};
  Config next = running;
  next.alerts.rules = {MakeRule("kept", 85), MakeRule("retuned", 90), MakeRule("new", 70),
                       MakeRule("also_new", 60)};
  next.alerts.rules[0].source = "elsewhere.json:3";  // Where a rule is defined is no change.
  const ReloadPlan plan = PlanReload(running, next);
  EXPECT_EQ(plan.rules_added, 2u);
  EXPECT_EQ(plan.rules_changed, 1u);
  EXPECT_EQ(plan.rules_removed, 1u);
  ASSERT_EQ(plan.next.alerts.rules.size(), 4u);
}

}  // namespace
}  // namespace edgemond::daemon
