#include "storage/sqlite/blob.h"

#include <string>
#include <utility>

#include "storage/sqlite/error.h"

namespace edgemond::storage::sqlite {

Blob::Blob(sqlite3* db, sqlite3_blob* blob, std::int64_t rowid)
    : db_(db), blob_(blob), rowid_(rowid), size_(sqlite3_blob_bytes(blob)) {}

Blob::Blob(Blob&& other) noexcept
    : db_(std::exchange(other.db_, nullptr)),
      blob_(std::exchange(other.blob_, nullptr)),
      rowid_(other.rowid_),
      size_(other.size_) {}

Blob& Blob::operator=(Blob&& other) noexcept {
  if (this != &other) {
    if (blob_ != nullptr) sqlite3_blob_close(blob_);
    db_ = std::exchange(other.db_, nullptr);
    blob_ = std::exchange(other.blob_, nullptr);
    rowid_ = other.rowid_;
    size_ = other.size_;
  }
  return *this;
}

Blob::~Blob() {
  if (blob_ != nullptr) sqlite3_blob_close(blob_);
}

Status Blob::Error(int result_code, std::string_view what) const {
  return SqliteError(result_code, db_, std::string(what) + " (row " + std::to_string(rowid_) + ")");
}

Status Blob::Reopen(std::int64_t rowid) {
  rowid_ = rowid;
  const int rc = sqlite3_blob_reopen(blob_, rowid);
  if (rc != SQLITE_OK) {
    size_ = 0;
    return Error(rc, "moving a blob handle");
  }
  size_ = sqlite3_blob_bytes(blob_);
  return Status::Ok();
}

Status Blob::Read(std::int64_t offset, std::span<char> out) const {
  if (offset < 0 || offset + static_cast<std::int64_t>(out.size()) > size_) {
    return Status::Corruption("reading bytes " + std::to_string(offset) + ".." +
                              std::to_string(offset + static_cast<std::int64_t>(out.size())) +
                              " of a " + std::to_string(size_) + "-byte value (row " +
                              std::to_string(rowid_) + ")");
  }
  if (out.empty()) return Status::Ok();
  const int rc =
      sqlite3_blob_read(blob_, out.data(), static_cast<int>(out.size()), static_cast<int>(offset));
  if (rc != SQLITE_OK) return Error(rc, "reading a blob");
  return Status::Ok();
}

}  // namespace edgemond::storage::sqlite
