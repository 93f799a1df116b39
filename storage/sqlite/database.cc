#include "storage/sqlite/database.h"

#include <utility>

#include "storage/sqlite/error.h"

namespace edgemond::storage::sqlite {

namespace {

int OpenFlags(DatabaseOptions::Mode mode) {
  // NOMUTEX: each connection is used by one thread at a time (see the header), so SQLite's own
  // per-connection mutex would only cost time.
  int flags = SQLITE_OPEN_NOMUTEX;
  switch (mode) {
    case DatabaseOptions::Mode::kReadWriteCreate:
      flags |= SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
      break;
    case DatabaseOptions::Mode::kReadWrite:
      flags |= SQLITE_OPEN_READWRITE;
      break;
    case DatabaseOptions::Mode::kReadOnly:
      flags |= SQLITE_OPEN_READONLY;
      break;
  }
  return flags;
}

}  // namespace

Database::Database(std::string path, sqlite3* db) : path_(std::move(path)), db_(db) {}

Database::~Database() {
  for (auto& [sql, cached] : cache_) sqlite3_finalize(cached.stmt);
  // close_v2: should a Statement outlive us by mistake, the connection becomes a zombie that is
  // closed with the last statement instead of leaking or crashing.
  sqlite3_close_v2(db_);
}

Result<std::unique_ptr<Database>> Database::Open(const std::string& path,
                                                 const DatabaseOptions& options) {
  const std::string context = "opening database " + path;
  sqlite3* raw = nullptr;
  const int rc = sqlite3_open_v2(path.c_str(), &raw, OpenFlags(options.mode),
                                 options.exclusive_to_process ? "unix-excl" : nullptr);
  if (raw == nullptr) return SqliteError(rc, nullptr, context);
  // From here on `db` owns the handle, including on the error paths below.
  std::unique_ptr<Database> db(new Database(path, raw));
  if (rc != SQLITE_OK) return SqliteError(rc, raw, context);
  sqlite3_extended_result_codes(raw, 1);
  sqlite3_busy_timeout(raw, static_cast<int>(options.busy_timeout.count()));
  if (options.small_memory) {
    sqlite3_db_config(raw, SQLITE_DBCONFIG_LOOKASIDE, nullptr, 0, 0);
  }
  // Installing a WAL hook replaces (and so disables) the automatic checkpoint.
  if (options.manual_checkpoints) sqlite3_wal_hook(raw, &Database::OnWalCommit, db.get());
  // SQLite opens files lazily: read the schema now so that a file that is not a database, or
  // one whose header is damaged, fails here with the path rather than at the first query.
  auto probe = db->QueryInt64("SELECT count(*) FROM sqlite_master");
  if (!probe.ok()) return probe.status().WithContext(context);
  return db;
}

int Database::OnWalCommit(void* self, sqlite3* /*db*/, const char* /*name*/, int frames) {
  static_cast<Database*>(self)->wal_frames_ = frames;
  return SQLITE_OK;
}

Status Database::Error(int result_code, std::string_view what) const {
  std::string context = "database " + path_;
  if (!what.empty()) {
    context += ": ";
    context += what;
  }
  return SqliteError(result_code, db_, context);
}

Status Database::Execute(std::string_view sql) {
  const std::string text(sql);  // sqlite3_exec needs a NUL-terminated string.
  const int rc = sqlite3_exec(db_, text.c_str(), nullptr, nullptr, nullptr);
  if (rc != SQLITE_OK) return Error(rc, "executing \"" + text + "\"");
  return Status::Ok();
}

Result<Statement> Database::Prepare(std::string_view sql) {
  sqlite3_stmt* stmt = nullptr;
  const char* tail = nullptr;
  const int rc = sqlite3_prepare_v2(db_, sql.data(), static_cast<int>(sql.size()), &stmt, &tail);
  if (rc != SQLITE_OK) return Error(rc, "preparing \"" + std::string(sql) + "\"");
  Statement statement(db_, stmt, nullptr);
  if (stmt == nullptr) {
    return Status::Internal("database " + path_ + ": no statement in \"" + std::string(sql) + "\"");
  }
  const std::string_view rest(tail, static_cast<std::size_t>(sql.data() + sql.size() - tail));
  if (rest.find_first_not_of(" \t\r\n;") != std::string_view::npos) {
    return Status::Internal("database " + path_ + ": more than one statement in \"" +
                            std::string(sql) + "\"");
  }
  return statement;
}

Result<Statement> Database::GetCachedStatement(std::string_view sql) {
  auto it = cache_.find(std::string(sql));
  if (it == cache_.end()) {
    EDGEMOND_ASSIGN_OR_RETURN(Statement prepared, Prepare(sql));
    CachedStatement entry;
    entry.stmt = std::exchange(prepared.stmt_, nullptr);
    it = cache_.emplace(std::string(sql), entry).first;
  }
  if (it->second.in_use) {
    return Status::Internal("database " + path_ + ": cached statement already in use: \"" +
                            std::string(sql) + "\"");
  }
  it->second.in_use = true;
  return Statement(db_, it->second.stmt, &it->second.in_use);
}

Result<std::int64_t> Database::QueryInt64(std::string_view sql) {
  EDGEMOND_ASSIGN_OR_RETURN(Statement statement, Prepare(sql));
  EDGEMOND_ASSIGN_OR_RETURN(const bool has_row, statement.Step());
  if (!has_row) return Status::NotFound("no row from \"" + std::string(sql) + "\"");
  return statement.ColumnInt64(0);
}

Result<std::string> Database::QueryString(std::string_view sql) {
  EDGEMOND_ASSIGN_OR_RETURN(Statement statement, Prepare(sql));
  EDGEMOND_ASSIGN_OR_RETURN(const bool has_row, statement.Step());
  if (!has_row) return Status::NotFound("no row from \"" + std::string(sql) + "\"");
  return statement.ColumnString(0);
}

Result<std::vector<std::string>> Database::CheckRows(std::string_view pragma) {
  EDGEMOND_ASSIGN_OR_RETURN(Statement statement, Prepare(pragma));
  std::vector<std::string> rows;
  while (true) {
    EDGEMOND_ASSIGN_OR_RETURN(const bool has_row, statement.Step());
    if (!has_row) break;
    rows.push_back(statement.ColumnString(0));
  }
  return rows;
}

namespace {

Status CheckOutcome(const std::string& path, std::string_view check,
                    const std::vector<std::string>& rows) {
  if (rows.size() == 1 && rows[0] == "ok") return Status::Ok();
  std::string message = "database " + path + " failed " + std::string(check) + ":";
  constexpr std::size_t kMaxReported = 5;
  for (std::size_t i = 0; i < rows.size() && i < kMaxReported; ++i) {
    message += i == 0 ? " " : "; ";
    message += rows[i];
  }
  if (rows.size() > kMaxReported) {
    message += "; ... (" + std::to_string(rows.size()) + " problems)";
  }
  return Status::Corruption(message);
}

}  // namespace

Status Database::IntegrityCheck() {
  EDGEMOND_ASSIGN_OR_RETURN(auto rows, CheckRows("PRAGMA integrity_check"));
  return CheckOutcome(path_, "integrity_check", rows);
}

Status Database::QuickCheck() {
  EDGEMOND_ASSIGN_OR_RETURN(auto rows, CheckRows("PRAGMA quick_check"));
  return CheckOutcome(path_, "quick_check", rows);
}

Result<CheckpointResult> Database::Checkpoint(CheckpointMode mode) {
  CheckpointResult result;
  const int sqlite_mode =
      mode == CheckpointMode::kPassive ? SQLITE_CHECKPOINT_PASSIVE : SQLITE_CHECKPOINT_TRUNCATE;
  const int rc = sqlite3_wal_checkpoint_v2(db_, nullptr, sqlite_mode, &result.wal_frames,
                                           &result.checkpointed_frames);
  // A passive checkpoint that cannot finish because a reader is active is not an error.
  if (rc != SQLITE_OK) return Error(rc, "checkpoint");
  wal_frames_ = result.wal_frames - result.checkpointed_frames;
  return result;
}

Result<Blob> Database::OpenBlob(const std::string& table, const std::string& column,
                                std::int64_t rowid) {
  sqlite3_blob* blob = nullptr;
  const int rc =
      sqlite3_blob_open(db_, "main", table.c_str(), column.c_str(), rowid, /*flags=*/0, &blob);
  if (rc != SQLITE_OK) {
    // On failure SQLite may still hand out a handle that must be closed.
    if (blob != nullptr) sqlite3_blob_close(blob);
    const std::string what = "opening " + table + "." + column + " of row " + std::to_string(rowid);
    // "no such rowid" is reported as SQLITE_ERROR.
    if (rc == SQLITE_ERROR) return Status::NotFound("database " + path_ + ": " + what);
    return Error(rc, what);
  }
  return Blob(db_, blob, rowid);
}

void Database::ReleaseMemory() { sqlite3_db_release_memory(db_); }

std::int64_t Database::Changes() const { return sqlite3_changes64(db_); }

bool Database::InTransaction() const { return sqlite3_get_autocommit(db_) == 0; }

}  // namespace edgemond::storage::sqlite
