#include "storage/alert_history.h"

#include "storage/label_text.h"
#include "storage/schema.h"
#include "storage/sqlite/statement.h"
#include "storage/sqlite/transaction.h"

namespace edgemond::storage {
namespace {

constexpr std::string_view kColumns =
    "at_ms, rule, labels, state, severity, value, op, threshold, clear_threshold, "
    "active_since_ms, reason, rule_labels, annotations";

// Annotations and rule labels are free-form names; sorted like labels so they round-trip.
std::string LabelText(const Labels& labels) {
  auto canonical = CanonicalLabels(labels);
  return canonical.ok() ? FormatLabelText(*canonical) : FormatLabelText({});
}

Result<AlertTransition> ReadRow(sqlite::Statement& row) {
  AlertTransition t;
  t.at = FromUnixMillis(row.ColumnInt64(0));
  t.rule = row.ColumnString(1);
  EDGEMOND_ASSIGN_OR_RETURN(t.labels, ParseLabelText(row.ColumnText(2)));
  EDGEMOND_ASSIGN_OR_RETURN(t.state, ParseAlertState(row.ColumnText(3)));
  EDGEMOND_ASSIGN_OR_RETURN(t.severity, ParseAlertSeverity(row.ColumnText(4)));
  if (!row.ColumnIsNull(5)) t.value = row.ColumnDouble(5);
  t.op = row.ColumnString(6);
  t.threshold = row.ColumnDouble(7);
  t.clear_threshold = row.ColumnDouble(8);
  t.active_since = FromUnixMillis(row.ColumnInt64(9));
  t.reason = row.ColumnString(10);
  EDGEMOND_ASSIGN_OR_RETURN(t.rule_labels, ParseLabelText(row.ColumnText(11)));
  EDGEMOND_ASSIGN_OR_RETURN(t.annotations, ParseLabelText(row.ColumnText(12)));
  return t;
}

}  // namespace

Result<std::unique_ptr<AlertHistory>> AlertHistory::Open(const std::string& path) {
  sqlite::DatabaseOptions options;
  options.mode = sqlite::DatabaseOptions::Mode::kReadWrite;
  options.small_memory = true;
  options.exclusive_to_process = true;  // As the store's connections (storage/sqlite_store.h).
  EDGEMOND_ASSIGN_OR_RETURN(auto db, sqlite::Database::Open(path, options));
  EDGEMOND_ASSIGN_OR_RETURN(const int version, CheckSchema(*db, BuiltinMigrations()));
  if (version < kAlertHistorySchemaVersion) {
    return Status::FailedPrecondition(
        "alert history: database " + path + " has schema version " + std::to_string(version) +
        "; the alert history needs version " + std::to_string(kAlertHistorySchemaVersion) +
        " (the store migrates the database when it opens it: open the store first)");
  }
  return std::unique_ptr<AlertHistory>(new AlertHistory(std::move(db)));
}

Status AlertHistory::Append(const std::vector<AlertTransition>& transitions) {
  if (transitions.empty()) return Status::Ok();
  std::lock_guard lock(mu_);
  sqlite::Transaction transaction(*db_, sqlite::Transaction::Mode::kImmediate);
  EDGEMOND_RETURN_IF_ERROR(transaction.Begin());
  for (const AlertTransition& t : transitions) {
    EDGEMOND_ASSIGN_OR_RETURN(
        auto insert, db_->GetCachedStatement("INSERT INTO alert_history (" + std::string(kColumns) +
                                             ") VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)"));
    insert.BindInt64(0, ToUnixMillis(t.at));
    insert.BindText(1, t.rule);
    insert.BindText(2, LabelText(t.labels));
    insert.BindText(3, AlertStateName(t.state));
    insert.BindText(4, AlertSeverityName(t.severity));
    if (t.value && t.value == t.value) {
      insert.BindDouble(5, *t.value);
    } else {
      insert.BindNull(5);
    }
    insert.BindText(6, t.op);
    insert.BindDouble(7, t.threshold);
    insert.BindDouble(8, t.clear_threshold);
    insert.BindInt64(9, ToUnixMillis(t.active_since));
    insert.BindText(10, t.reason);
    insert.BindText(11, LabelText(t.rule_labels));
    insert.BindText(12, LabelText(t.annotations));
    EDGEMOND_RETURN_IF_ERROR(insert.Run());
  }
  return transaction.Commit();
}

Result<std::vector<AlertTransition>> AlertHistory::Query(const AlertHistoryQuery& query) {
  std::lock_guard lock(mu_);
  std::string sql = "SELECT " + std::string(kColumns) +
                    " FROM alert_history WHERE at_ms >= ? AND at_ms <= ?" +
                    (query.rule ? " AND rule = ?" : "") + " ORDER BY at_ms DESC, id DESC LIMIT ?";
  EDGEMOND_ASSIGN_OR_RETURN(auto select, db_->Prepare(sql));
  int index = 0;
  select.BindInt64(index++, query.from_ms);
  select.BindInt64(index++, query.to_ms);
  if (query.rule) select.BindText(index++, *query.rule);
  select.BindInt64(index++, static_cast<std::int64_t>(query.limit));
  std::vector<AlertTransition> out;
  while (true) {
    EDGEMOND_ASSIGN_OR_RETURN(const bool row, select.Step());
    if (!row) break;
    EDGEMOND_ASSIGN_OR_RETURN(AlertTransition t, ReadRow(select));
    out.push_back(std::move(t));
  }
  return out;
}

Result<std::vector<AlertTransition>> AlertHistory::StillFiring() {
  std::lock_guard lock(mu_);
  EDGEMOND_ASSIGN_OR_RETURN(
      auto select,
      db_->Prepare("SELECT " + std::string(kColumns) +
                   " FROM alert_history WHERE id IN (SELECT max(id) FROM alert_history GROUP BY "
                   "rule, labels) AND state = 'firing' ORDER BY rule, labels"));
  std::vector<AlertTransition> out;
  while (true) {
    EDGEMOND_ASSIGN_OR_RETURN(const bool row, select.Step());
    if (!row) break;
    EDGEMOND_ASSIGN_OR_RETURN(AlertTransition t, ReadRow(select));
    out.push_back(std::move(t));
  }
  return out;
}

Result<std::int64_t> AlertHistory::EnforceRetention(WallTime now,
                                                    std::chrono::milliseconds retention) {
  std::lock_guard lock(mu_);
  EDGEMOND_ASSIGN_OR_RETURN(
      auto erase,
      db_->Prepare("DELETE FROM alert_history WHERE at_ms < ? AND id NOT IN (SELECT max(id) FROM "
                   "alert_history GROUP BY rule, labels HAVING state = 'firing')"));
  erase.BindInt64(0, ToUnixMillis(now) - retention.count());
  EDGEMOND_RETURN_IF_ERROR(erase.Run());
  return db_->Changes();
}

}  // namespace edgemond::storage
