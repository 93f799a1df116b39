#include "storage/alert_history.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "storage/schema.h"
#include "storage/sqlite/database.h"
#include "storage/sqlite_store.h"
#include "tests/testing/temp_dir.h"

namespace edgemond::storage {
namespace {

using std::chrono::hours;
using std::chrono::minutes;

const WallTime kT0 = FromUnixMillis(1767225600000);

AlertTransition Transition(std::string rule, std::string zone, AlertState state, WallTime at) {
  AlertTransition t;
  t.rule = std::move(rule);
  t.state = state;
  t.severity = AlertSeverity::kCritical;
  t.labels = {{"zone", std::move(zone)}, {"type", "x\"y"}};
  t.rule_labels = {{"team", "ops"}};
  t.value = state == AlertState::kFiring ? std::optional<double>(96.5) : std::nullopt;
  t.op = ">";
  t.threshold = 95;
  t.clear_threshold = 90;
  t.at = at;
  t.active_since = at - minutes(1);
  t.reason = state == AlertState::kFiring ? "threshold" : "no_data";
  t.annotations = {{"summary", "hot, \"really\"\nhot"}};
  return t;
}

TEST(AlertHistoryTest, StoresQueriesAndSurvivesAReopenNextToTheStore) {
  testing::TempDir dir;
  const std::string path = dir.Join("edgemond.db");
  StorageOptions options;
  options.path = path;
  auto store = SqliteStore::Open(options);
  ASSERT_TRUE(store.ok()) << store.status();
  {
    auto history = AlertHistory::Open(path);
    ASSERT_TRUE(history.ok()) << history.status();
    ASSERT_TRUE((*history)
                    ->Append({Transition("hot", "cpu", AlertState::kFiring, kT0),
                              Transition("hot", "gpu", AlertState::kFiring, kT0 + minutes(1)),
                              Transition("hot", "cpu", AlertState::kResolved, kT0 + minutes(2)),
                              Transition("cold", "cpu", AlertState::kFiring, kT0 + minutes(3))})
                    .ok());
  }
  auto history = AlertHistory::Open(path);  // Reopened: the table is there, nothing is lost.
  ASSERT_TRUE(history.ok()) << history.status();
  auto all = (*history)->Query({ToUnixMillis(kT0), ToUnixMillis(kT0 + hours(1)), {}, 100});
  ASSERT_TRUE(all.ok()) << all.status();
  ASSERT_EQ(all->size(), 4u);
  EXPECT_EQ((*all)[0].rule, "cold");  // Newest first.
  const AlertTransition& resolved = (*all)[1];
  EXPECT_EQ(resolved.state, AlertState::kResolved);
  EXPECT_FALSE(resolved.value.has_value());
  EXPECT_EQ(resolved.reason, "no_data");
  EXPECT_EQ(resolved.labels, (Labels{{"type", "x\"y"}, {"zone", "cpu"}}));
  EXPECT_EQ(resolved.rule_labels, (Labels{{"team", "ops"}}));
  EXPECT_EQ(resolved.annotations, (Labels{{"summary", "hot, \"really\"\nhot"}}));
  EXPECT_EQ(resolved.at, kT0 + minutes(2));
  EXPECT_EQ(resolved.active_since, kT0 + minutes(1));
  EXPECT_EQ(resolved.severity, AlertSeverity::kCritical);
  EXPECT_EQ(resolved.threshold, 95);
  EXPECT_EQ(resolved.clear_threshold, 90);
  EXPECT_EQ(resolved.op, ">");
  EXPECT_EQ((*all)[3].value, 96.5);

  auto hot = (*history)->Query({ToUnixMillis(kT0), ToUnixMillis(kT0 + minutes(1)), "hot", 100});
  ASSERT_TRUE(hot.ok());
  EXPECT_EQ(hot->size(), 2u);
  auto limited = (*history)->Query({0, ToUnixMillis(kT0 + hours(1)), {}, 1});
  ASSERT_TRUE(limited.ok());
  EXPECT_EQ(limited->size(), 1u);

  auto firing = (*history)->StillFiring();
  ASSERT_TRUE(firing.ok()) << firing.status();
  ASSERT_EQ(firing->size(), 2u);
  EXPECT_EQ((*firing)[0].rule, "cold");
  EXPECT_EQ((*firing)[1].labels[1].value, "gpu");

  // Retention keeps what is still firing, however old.
  auto deleted = (*history)->EnforceRetention(kT0 + hours(48), hours(24));
  ASSERT_TRUE(deleted.ok()) << deleted.status();
  EXPECT_EQ(*deleted, 2);
  auto left = (*history)->StillFiring();
  ASSERT_TRUE(left.ok());
  EXPECT_EQ(left->size(), 2u);

  // The store still opens and works on the same file.
  ASSERT_TRUE((*store)->Flush().ok());
  store = Result<std::unique_ptr<SqliteStore>>(Status::Internal("closed"));
  auto reopened = SqliteStore::Open(options);
  EXPECT_TRUE(reopened.ok()) << reopened.status();
}

TEST(AlertHistoryTest, NeedsADatabaseTheStoreHasMigrated) {
  testing::TempDir dir;
  const std::string path = dir.Join("edgemond.db");
  // No database at all: the history does not create one.
  EXPECT_EQ(AlertHistory::Open(path).status().code(), StatusCode::kNotFound);
  EXPECT_FALSE(std::filesystem::exists(path));
  // A database at schema version 2 (before the history): refused and left as it is.
  {
    auto db = sqlite::Database::Open(path, {});
    ASSERT_TRUE(db.ok()) << db.status();
    ASSERT_TRUE(Migrate(**db, BuiltinMigrations().first(2)).ok());
  }
  auto refused = AlertHistory::Open(path);
  EXPECT_EQ(refused.status().code(), StatusCode::kFailedPrecondition) << refused.status();
  EXPECT_NE(refused.status().message().find("open the store first"), std::string_view::npos);
  {
    auto db = sqlite::Database::Open(path, {});
    ASSERT_TRUE(db.ok());
    EXPECT_EQ((*db)->QueryInt64("PRAGMA user_version").value(), 2);
    EXPECT_EQ((*db)
                  ->QueryInt64("SELECT count(*) FROM sqlite_master WHERE name = 'alert_history'")
                  .value(),
              0);
  }
  // The store migrates it; then the history opens.
  StorageOptions options;
  options.path = path;
  options.ballast_bytes = 0;
  auto store = SqliteStore::Open(options);
  ASSERT_TRUE(store.ok()) << store.status();
  auto history = AlertHistory::Open(path);
  ASSERT_TRUE(history.ok()) << history.status();
  EXPECT_TRUE((*history)->Append({Transition("hot", "cpu", AlertState::kFiring, kT0)}).ok());
}

}  // namespace
}  // namespace edgemond::storage
