#include "storage/sqlite/statement.h"

#include <string>
#include <utility>

#include "storage/sqlite/error.h"

namespace edgemond::storage::sqlite {

Statement::Statement(sqlite3* db, sqlite3_stmt* stmt, bool* in_use)
    : db_(db), stmt_(stmt), in_use_(in_use) {}

Statement::Statement(Statement&& other) noexcept
    : db_(std::exchange(other.db_, nullptr)),
      stmt_(std::exchange(other.stmt_, nullptr)),
      in_use_(std::exchange(other.in_use_, nullptr)),
      bind_status_(std::move(other.bind_status_)) {}

Statement& Statement::operator=(Statement&& other) noexcept {
  if (this != &other) {
    Release();
    db_ = std::exchange(other.db_, nullptr);
    stmt_ = std::exchange(other.stmt_, nullptr);
    in_use_ = std::exchange(other.in_use_, nullptr);
    bind_status_ = std::move(other.bind_status_);
  }
  return *this;
}

Statement::~Statement() { Release(); }

void Statement::Release() {
  if (stmt_ == nullptr) return;
  if (in_use_ != nullptr) {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
    *in_use_ = false;
  } else {
    sqlite3_finalize(stmt_);
  }
  stmt_ = nullptr;
  in_use_ = nullptr;
}

void Statement::RecordBindResult(int result_code, int index) {
  if (result_code == SQLITE_OK || !bind_status_.ok()) return;
  bind_status_ = Error(result_code, "binding parameter " + std::to_string(index));
}

void Statement::BindNull(int index) {
  RecordBindResult(sqlite3_bind_null(stmt_, index + 1), index);
}

void Statement::BindInt64(int index, std::int64_t value) {
  RecordBindResult(sqlite3_bind_int64(stmt_, index + 1, value), index);
}

void Statement::BindDouble(int index, double value) {
  RecordBindResult(sqlite3_bind_double(stmt_, index + 1, value), index);
}

void Statement::BindText(int index, std::string_view value) {
  RecordBindResult(sqlite3_bind_text64(stmt_, index + 1, value.data(), value.size(),
                                       SQLITE_TRANSIENT, SQLITE_UTF8),
                   index);
}

void Statement::BindBlob(int index, std::string_view bytes) {
  // A null pointer would bind NULL rather than an empty blob.
  static constexpr char kEmpty = 0;
  RecordBindResult(sqlite3_bind_blob64(stmt_, index + 1, bytes.empty() ? &kEmpty : bytes.data(),
                                       bytes.size(), SQLITE_TRANSIENT),
                   index);
}

Result<bool> Statement::Step() {
  if (!bind_status_.ok()) return bind_status_;
  const int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  return Error(rc, "executing");
}

Status Statement::Run() {
  EDGEMOND_ASSIGN_OR_RETURN(const bool has_row, Step());
  if (has_row) {
    return Status::Internal("statement returned a row where none was expected: " +
                            std::string(sql()));
  }
  return Status::Ok();
}

void Statement::Reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
  bind_status_ = Status::Ok();
}

int Statement::ColumnCount() const { return sqlite3_column_count(stmt_); }

ColumnType Statement::GetColumnType(int column) const {
  switch (sqlite3_column_type(stmt_, column)) {
    case SQLITE_INTEGER:
      return ColumnType::kInteger;
    case SQLITE_FLOAT:
      return ColumnType::kFloat;
    case SQLITE_TEXT:
      return ColumnType::kText;
    case SQLITE_BLOB:
      return ColumnType::kBlob;
    default:
      return ColumnType::kNull;
  }
}

std::int64_t Statement::ColumnInt64(int column) const {
  return sqlite3_column_int64(stmt_, column);
}

double Statement::ColumnDouble(int column) const { return sqlite3_column_double(stmt_, column); }

std::string_view Statement::ColumnText(int column) const {
  const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, column));
  if (text == nullptr) return {};
  return std::string_view(text, static_cast<std::size_t>(sqlite3_column_bytes(stmt_, column)));
}

std::string_view Statement::ColumnBlob(int column) const {
  const void* data = sqlite3_column_blob(stmt_, column);
  if (data == nullptr) return {};
  return std::string_view(static_cast<const char*>(data),
                          static_cast<std::size_t>(sqlite3_column_bytes(stmt_, column)));
}

std::string_view Statement::sql() const {
  const char* text = stmt_ != nullptr ? sqlite3_sql(stmt_) : nullptr;
  return text != nullptr ? std::string_view(text) : std::string_view();
}

Status Statement::Error(int result_code, std::string_view what) const {
  std::string context(what);
  context += " \"";
  context += sql();
  context += "\"";
  return SqliteError(result_code, db_, context);
}

}  // namespace edgemond::storage::sqlite
