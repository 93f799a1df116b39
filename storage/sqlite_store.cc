#include "storage/sqlite_store.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <filesystem>
#include <unordered_set>
#include <utility>

#include "storage/label_text.h"
#include "storage/schema.h"
#include "storage/sqlite/statement.h"
#include "storage/sqlite/transaction.h"
#include "storage/step_aggregator.h"

namespace edgemond::storage {

namespace {

using sqlite::Database;
using sqlite::DatabaseOptions;
using sqlite::Statement;
using sqlite::Transaction;

// The WAL file is cut back to this size whenever SQLite rewinds it (journal_size_limit), so a
// burst (a large retention batch, a migration) does not leave a large file behind.
constexpr std::int64_t kJournalSizeLimitBytes = 4 << 20;
// Page cache per connection. The writer touches the right edge of the samples B-tree and a few
// catalog pages; the reader streams pages it will not revisit. Small caches keep RSS low.
constexpr int kCacheKib = 1024;
// Free pages beyond which retention gives space back with PRAGMA incremental_vacuum; below it,
// freed pages are simply reused by the next flushes (steady state frees ~10 pages a flush).
constexpr std::int64_t kVacuumThresholdPages = 2048;
constexpr int kVacuumPagesPerCall = 512;
// With more series than this, a multi-series query filters series ids in C++ instead of binding
// an IN list (SQLite allows at most 32766 parameters).
constexpr std::size_t kMaxInListSeries = 256;
// Head capacity kept after a flush: a flush interval of 500 series at 1 Hz fits (10 s: 5,000).
constexpr std::size_t kHeadCapacityToKeep = 16384;

Status PathError(int error_number, const std::string& message) {
  Status status = Status::FromErrno(error_number, message);
  // A read-only file system is a permission problem for the operator, not an I/O failure.
  if (error_number == EROFS) {
    return Status(StatusCode::kPermissionDenied, status.message(), error_number);
  }
  return status;
}

// Checks up front what SQLite would only report as "unable to open database file", so that the
// daemon can print one clear line naming the path.
Status CheckDatabasePath(const std::string& path) {
  const std::filesystem::path file(path);
  std::string dir = file.parent_path().string();
  if (dir.empty()) dir = ".";
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0) {
    const int error_number = errno;
    if (error_number == ENOENT || error_number == ENOTDIR) {
      return Status(StatusCode::kNotFound,
                    "storage: directory " + dir + " for database " + path + " does not exist",
                    error_number);
    }
    return PathError(error_number,
                     "storage: cannot use directory " + dir + " for database " + path);
  }
  if (!S_ISDIR(st.st_mode)) {
    return Status::NotFound("storage: " + dir + " (directory of database " + path +
                            ") is not a directory");
  }
  if (::access(dir.c_str(), W_OK | X_OK) != 0) {
    return PathError(errno, "storage: directory " + dir + " is not writable (database " + path +
                                " and its -wal and -shm files are created there)");
  }
  if (::stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) {
      return Status::InvalidArgument("storage: database path " + path + " is a directory");
    }
    if (::access(path.c_str(), R_OK | W_OK) != 0) {
      return PathError(errno, "storage: database file " + path + " is not writable");
    }
  }
  return Status::Ok();
}

// Takes the store's exclusive lock (see the header).
Result<UniqueFd> LockDatabase(const std::string& path) {
  const std::string lock_path = path + ".lock";
  UniqueFd fd(::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644));
  if (!fd) return PathError(errno, "storage: cannot create lock file " + lock_path);
  if (::flock(fd.get(), LOCK_EX | LOCK_NB) != 0) {
    const int error_number = errno;
    if (error_number == EWOULDBLOCK) {
      return Status(StatusCode::kFailedPrecondition,
                    "storage: database " + path + " is in use by another edgemond (lock file " +
                        lock_path + "); run one per database",
                    error_number);
    }
    return PathError(error_number, "storage: cannot lock " + lock_path);
  }
  return fd;
}

Status ValidateOptions(const StorageOptions& options) {
  if (options.path.empty()) return Status::InvalidArgument("storage: no database path given");
  if (options.flush_interval <= std::chrono::seconds(0)) {
    return Status::InvalidArgument("storage: flush interval must be positive");
  }
  if (options.retention <= std::chrono::milliseconds(0)) {
    return Status::InvalidArgument("storage: retention must be positive");
  }
  if (options.retention_batch_samples <= 0) {
    return Status::InvalidArgument("storage: retention batch must be positive");
  }
  if (options.checkpoint_wal_frames <= 0) {
    return Status::InvalidArgument("storage: checkpoint threshold must be positive");
  }
  return Status::Ok();
}

Status ConfigureConnection(Database& db) {
  return db.Execute("PRAGMA synchronous=NORMAL; PRAGMA temp_store=MEMORY; PRAGMA cache_size=-" +
                    std::to_string(kCacheKib));
}

Status EnableWal(Database& db) {
  EDGEMOND_ASSIGN_OR_RETURN(const std::string mode, db.QueryString("PRAGMA journal_mode=WAL"));
  if (mode != "wal") {
    return Status::Unsupported("storage: database " + db.path() +
                               " cannot use write-ahead logging (journal_mode stays \"" + mode +
                               "\"); is it on a network file system?");
  }
  return db.Execute("PRAGMA journal_size_limit=" + std::to_string(kJournalSizeLimitBytes));
}

// A summary's quantiles are each a gauge (as Prometheus stores them).
std::string_view TypeName(MetricType type) {
  return MetricTypeName(type == MetricType::kSummary ? MetricType::kGauge : type);
}

Result<MetricType> ParseType(std::string_view text) {
  if (text == "gauge") return MetricType::kGauge;
  if (text == "counter") return MetricType::kCounter;
  return Status::Corruption("unknown metric type \"" + std::string(text) + "\"");
}

std::string MakeKey(const std::string& name, const std::string& label_text) {
  return label_text.empty() ? name : name + "{" + label_text + "}";
}

std::int64_t FileSize(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 ? static_cast<std::int64_t>(st.st_size) : 0;
}

}  // namespace

Result<std::unique_ptr<SqliteStore>> SqliteStore::Open(const StorageOptions& options) {
  EDGEMOND_RETURN_IF_ERROR(ValidateOptions(options));
  EDGEMOND_RETURN_IF_ERROR(CheckDatabasePath(options.path));
  EDGEMOND_ASSIGN_OR_RETURN(UniqueFd lock_fd, LockDatabase(options.path));

  DatabaseOptions writer_options;
  writer_options.mode = DatabaseOptions::Mode::kReadWriteCreate;
  writer_options.manual_checkpoints = true;
  EDGEMOND_ASSIGN_OR_RETURN(std::unique_ptr<Database> writer,
                            Database::Open(options.path, writer_options));
  // Everything that decides whether this file may be used only reads; the first write is below.
  EDGEMOND_RETURN_IF_ERROR(CheckSchema(*writer, BuiltinMigrations()).status());
  if (options.check_integrity_on_open) EDGEMOND_RETURN_IF_ERROR(writer->QuickCheck());
  EDGEMOND_RETURN_IF_ERROR(PrepareEmptyDatabase(*writer));
  EDGEMOND_RETURN_IF_ERROR(EnableWal(*writer));
  EDGEMOND_RETURN_IF_ERROR(ConfigureConnection(*writer));
  EDGEMOND_RETURN_IF_ERROR(Migrate(*writer));

  DatabaseOptions reader_options;
  reader_options.mode = DatabaseOptions::Mode::kReadWrite;
  EDGEMOND_ASSIGN_OR_RETURN(std::unique_ptr<Database> reader,
                            Database::Open(options.path, reader_options));
  EDGEMOND_RETURN_IF_ERROR(reader->Execute("PRAGMA query_only=ON"));
  EDGEMOND_RETURN_IF_ERROR(ConfigureConnection(*reader));

  std::unique_ptr<SqliteStore> store(
      new SqliteStore(options, std::move(lock_fd), std::move(writer), std::move(reader)));
  EDGEMOND_RETURN_IF_ERROR(store->LoadCatalog());
  return store;
}

SqliteStore::SqliteStore(StorageOptions options, UniqueFd lock_fd, std::unique_ptr<Database> writer,
                         std::unique_ptr<Database> reader)
    : options_(std::move(options)),
      lock_fd_(std::move(lock_fd)),
      writer_(std::move(writer)),
      reader_(std::move(reader)) {}

SqliteStore::~SqliteStore() = default;

std::size_t SqliteStore::head_limit() const {
  if (options_.max_head_samples > 0) return options_.max_head_samples;
  constexpr std::size_t kSeries = 500;
  constexpr std::size_t kFlushIntervals = 64;
  return kSeries * kFlushIntervals * static_cast<std::size_t>(options_.flush_interval.count());
}

Status SqliteStore::LoadCatalog() {
  std::lock_guard write_lock(write_mu_);
  std::lock_guard lock(mu_);
  EDGEMOND_ASSIGN_OR_RETURN(
      Statement select,
      writer_->Prepare("SELECT s.id, s.name, s.labels, s.unit, s.type, e.first_ms, e.last_ms "
                       "FROM series s LEFT JOIN series_extent e ON e.series_id = s.id"));
  while (true) {
    EDGEMOND_ASSIGN_OR_RETURN(const bool has_row, select.Step());
    if (!has_row) break;
    SeriesEntry entry;
    entry.persisted = true;
    entry.id = select.ColumnInt64(0);
    SeriesInfo& info = entry.info;
    info.name = select.ColumnString(1);
    const std::string label_text = select.ColumnString(2);
    const auto context = [&] {
      return "storage: database " + options_.path + ": series " + std::to_string(entry.id);
    };
    auto labels = ParseLabelText(label_text);
    if (!labels.ok()) return labels.status().WithContext(context());
    info.labels = std::move(labels).value();
    info.unit = select.ColumnString(3);
    auto type = ParseType(select.ColumnText(4));
    if (!type.ok()) return type.status().WithContext(context());
    info.type = *type;
    if (!select.ColumnIsNull(5)) info.first_ms = select.ColumnInt64(5);
    if (!select.ColumnIsNull(6)) info.last_ms = select.ColumnInt64(6);
    entry.key = MakeKey(info.name, label_text);
    next_series_id_ = std::max(next_series_id_, entry.id + 1);
    const std::string key = entry.key;
    auto [it, inserted] = series_by_key_.emplace(key, std::move(entry));
    if (!inserted) {
      return Status::Corruption(context() + ": duplicate series key " + key);
    }
    series_by_id_[it->second.id] = &it->second;
  }
  return Status::Ok();
}

Status SqliteStore::Append(const std::vector<Sample>& samples) {
  std::lock_guard write_lock(write_mu_);
  // Validate the whole batch before changing anything, so a bad sample rejects the batch alone.
  // The writer may read the in-memory state without mu_: only writers change it (see header).
  std::vector<std::string> keys;
  keys.reserve(samples.size());
  std::map<std::string, SeriesInfo> new_series;
  std::size_t values = 0;
  for (std::size_t i = 0; i < samples.size(); ++i) {
    const Sample& sample = samples[i];
    if (sample.desc == nullptr) {
      return Status::InvalidArgument("storage: sample " + std::to_string(i) +
                                     " of the batch has no metric description");
    }
    std::string key = SeriesKey(sample);
    if (!series_by_key_.contains(key) && !new_series.contains(key)) {
      SeriesInfo info;
      info.name = std::string(sample.desc->name);
      auto status = ValidateMetricName(info.name);
      auto labels = CanonicalLabels(sample.labels);
      if (!status.ok() || !labels.ok()) {
        return (status.ok() ? labels.status() : status)
            .WithContext("storage: sample " + std::to_string(i) + " (" + key + ")");
      }
      info.labels = std::move(labels).value();
      info.unit = std::string(sample.desc->unit);
      info.type = sample.desc->type;
      new_series.emplace(key, std::move(info));
    }
    if (sample.value.has_value() && !std::isnan(*sample.value)) ++values;
    keys.push_back(std::move(key));
  }
  if (head_.size() + values > head_limit()) {
    return Status::ResourceExhausted("storage: " + std::to_string(head_.size()) +
                                     " samples are waiting for a flush (the limit is " +
                                     std::to_string(head_limit()) + "; flushes to " +
                                     options_.path + " have been failing); dropped a batch of " +
                                     std::to_string(samples.size()) + " samples");
  }

  std::lock_guard lock(mu_);
  for (auto& [key, info] : new_series) {
    SeriesEntry entry;
    entry.id = next_series_id_++;
    entry.key = key;
    entry.info = std::move(info);
    auto it = series_by_key_.emplace(key, std::move(entry)).first;
    series_by_id_[it->second.id] = &it->second;
  }
  head_.reserve(head_.size() + values);
  for (std::size_t i = 0; i < samples.size(); ++i) {
    const Sample& sample = samples[i];
    SeriesEntry& entry = series_by_key_.find(keys[i])->second;
    live_series_.insert(entry.id);
    if (!sample.value.has_value() || std::isnan(*sample.value)) continue;  // A gap.
    const std::int64_t ts_ms = ToUnixMillis(sample.at);
    head_.push_back({ts_ms, entry.id, *sample.value});
    SeriesInfo& info = entry.info;
    if (!info.first_ms || ts_ms < *info.first_ms) info.first_ms = ts_ms;
    if (!info.last_ms || ts_ms > *info.last_ms) info.last_ms = ts_ms;
    entry.extent_dirty = true;
  }
  return Status::Ok();
}

Status SqliteStore::Flush() {
  std::lock_guard write_lock(write_mu_);
  // The writer may read the in-memory state without mu_: only writers change it (see header).
  std::vector<SeriesEntry*> new_series;
  std::vector<SeriesEntry*> extents;
  for (auto& [key, entry] : series_by_key_) {
    if (!entry.persisted) new_series.push_back(&entry);
    if (entry.extent_dirty) extents.push_back(&entry);
  }
  if (head_.empty() && new_series.empty() && extents.empty()) return Status::Ok();

  // Rows in key order, so the transaction appends to the B-tree's right edge in sequence. For
  // one (ts, series) appended twice the later sample wins, as INSERT OR REPLACE would decide.
  std::vector<HeadSample> rows = head_;
  std::stable_sort(rows.begin(), rows.end(), [](const HeadSample& a, const HeadSample& b) {
    return a.ts_ms != b.ts_ms ? a.ts_ms < b.ts_ms : a.series_id < b.series_id;
  });
  std::vector<HeadSample> unique;
  unique.reserve(rows.size());
  for (const HeadSample& row : rows) {
    if (!unique.empty() && unique.back().ts_ms == row.ts_ms &&
        unique.back().series_id == row.series_id) {
      unique.back() = row;
    } else {
      unique.push_back(row);
    }
  }
  const Status status = WriteFlush(unique, new_series, extents);
  if (!status.ok()) {
    return status.WithContext("storage: flushing " + std::to_string(head_.size()) + " samples to " +
                              options_.path);
  }
  const Status checkpoint = CheckpointIfDue();
  if (!checkpoint.ok()) {
    return checkpoint.WithContext("storage: samples flushed to " + options_.path +
                                  ", but checkpointing its write-ahead log failed");
  }
  return Status::Ok();
}

Status SqliteStore::WriteFlush(const std::vector<HeadSample>& rows,
                               std::vector<SeriesEntry*>& new_series,
                               std::vector<SeriesEntry*>& extents) {
  Transaction transaction(*writer_, Transaction::Mode::kImmediate);
  EDGEMOND_RETURN_IF_ERROR(transaction.Begin());
  if (!new_series.empty()) {
    EDGEMOND_ASSIGN_OR_RETURN(
        Statement insert,
        writer_->GetCachedStatement(
            "INSERT INTO series(id, name, labels, unit, type) VALUES (?, ?, ?, ?, ?)"));
    for (const SeriesEntry* entry : new_series) {
      const SeriesInfo& info = entry->info;
      insert.BindInt64(0, entry->id);
      insert.BindText(1, info.name);
      insert.BindText(2, FormatLabelText(info.labels));
      insert.BindText(3, info.unit);
      insert.BindText(4, TypeName(info.type));
      EDGEMOND_RETURN_IF_ERROR(insert.Run());
      insert.Reset();
    }
  }
  if (!rows.empty()) {
    EDGEMOND_ASSIGN_OR_RETURN(
        Statement insert,
        writer_->GetCachedStatement(
            "INSERT OR REPLACE INTO samples(ts, series_id, value) VALUES (?, ?, ?)"));
    for (const HeadSample& row : rows) {
      insert.BindInt64(0, row.ts_ms);
      insert.BindInt64(1, row.series_id);
      insert.BindDouble(2, row.value);
      EDGEMOND_RETURN_IF_ERROR(insert.Run());
      insert.Reset();
    }
  }
  if (!extents.empty()) {
    EDGEMOND_ASSIGN_OR_RETURN(
        Statement upsert,
        writer_->GetCachedStatement(
            "INSERT INTO series_extent(series_id, first_ms, last_ms) VALUES (?, ?, ?) "
            "ON CONFLICT(series_id) DO UPDATE SET first_ms = excluded.first_ms, "
            "last_ms = excluded.last_ms"));
    for (const SeriesEntry* entry : extents) {
      const SeriesInfo& info = entry->info;
      if (!info.first_ms || !info.last_ms) continue;
      upsert.BindInt64(0, entry->id);
      upsert.BindInt64(1, *info.first_ms);
      upsert.BindInt64(2, *info.last_ms);
      EDGEMOND_RETURN_IF_ERROR(upsert.Run());
      upsert.Reset();
    }
  }
  // Commit and hand the samples over from the head to the database atomically for readers.
  std::lock_guard lock(mu_);
  EDGEMOND_RETURN_IF_ERROR(transaction.Commit());
  head_.clear();  // Append cannot run meanwhile (write_mu_), so every head sample was written.
  // After a long run of failed flushes, give the backlog's memory back.
  if (head_.capacity() > kHeadCapacityToKeep) std::vector<HeadSample>().swap(head_);
  for (SeriesEntry* entry : new_series) entry->persisted = true;
  for (SeriesEntry* entry : extents) entry->extent_dirty = false;
  return Status::Ok();
}

Status SqliteStore::CheckpointIfDue() {
  if (writer_->wal_frames() < options_.checkpoint_wal_frames) return Status::Ok();
  return writer_->Checkpoint(Database::CheckpointMode::kPassive).status();
}

Result<RetentionResult> SqliteStore::EnforceRetention(WallTime now) {
  std::lock_guard write_lock(write_mu_);
  RetentionResult result;
  const std::int64_t cutoff_ms = ToUnixMillis(now) - options_.retention.count();

  // Samples expire in whole batches: the oldest batch is deleted once all of it is older than
  // the cutoff. Returns the timestamp of the batch's last sample, if a whole batch has expired.
  const auto expired_batch_end = [&]() -> Result<std::optional<std::int64_t>> {
    EDGEMOND_ASSIGN_OR_RETURN(Statement nth,
                              writer_->GetCachedStatement("SELECT ts FROM samples WHERE ts < ? "
                                                          "ORDER BY ts LIMIT 1 OFFSET ?"));
    nth.BindInt64(0, cutoff_ms);
    nth.BindInt64(1, options_.retention_batch_samples - 1);
    EDGEMOND_ASSIGN_OR_RETURN(const bool has_row, nth.Step());
    if (!has_row) return std::optional<std::int64_t>();
    return std::optional<std::int64_t>(nth.ColumnInt64(0));
  };
  EDGEMOND_ASSIGN_OR_RETURN(const std::optional<std::int64_t> batch_end_ms, expired_batch_end());

  std::optional<Transaction> transaction;
  if (batch_end_ms) {
    transaction.emplace(*writer_, Transaction::Mode::kImmediate);
    EDGEMOND_RETURN_IF_ERROR(transaction->Begin());
    {
      // The batch ends with a whole timestamp (the samples of a tick share one), so it may
      // exceed retention_batch_samples by less than the number of series.
      EDGEMOND_ASSIGN_OR_RETURN(Statement erase,
                                writer_->GetCachedStatement("DELETE FROM samples WHERE ts <= ?"));
      erase.BindInt64(0, *batch_end_ms);
      EDGEMOND_RETURN_IF_ERROR(erase.Run());
      result.deleted_samples = writer_->Changes();
    }
    EDGEMOND_ASSIGN_OR_RETURN(const std::optional<std::int64_t> next, expired_batch_end());
    result.complete = !next.has_value();
  }
  // No stored sample is older than `floor_ms` (once this call commits).
  std::int64_t floor_ms = cutoff_ms;
  {
    EDGEMOND_ASSIGN_OR_RETURN(Statement oldest, writer_->GetCachedStatement(
                                                    "SELECT ts FROM samples ORDER BY ts LIMIT 1"));
    EDGEMOND_ASSIGN_OR_RETURN(const bool has_row, oldest.Step());
    if (has_row) floor_ms = oldest.ColumnInt64(0);
  }

  // Extents that move: every series whose first sample is gone. A series left without any sample
  // loses its extent, and its catalog entry too unless it was appended to since this store
  // opened (a sensor that is still there but has been failing for the whole retention period).
  std::vector<std::int64_t> dead_series;
  bool extents_change = false;
  for (const auto& [key, entry] : series_by_key_) {
    const SeriesInfo& info = entry.info;
    if (info.first_ms && *info.first_ms < floor_ms) extents_change = true;
    if (!entry.persisted || live_series_.contains(entry.id)) continue;
    if (!info.last_ms || *info.last_ms < floor_ms) dead_series.push_back(entry.id);
  }
  if (!transaction && dead_series.empty() && !extents_change) return result;

  if (!transaction) {
    transaction.emplace(*writer_, Transaction::Mode::kImmediate);
    EDGEMOND_RETURN_IF_ERROR(transaction->Begin());
  }
  if (extents_change) {
    for (const char* sql : {"DELETE FROM series_extent WHERE last_ms < ?",
                            "UPDATE series_extent SET first_ms = ?1 WHERE first_ms < ?1"}) {
      EDGEMOND_ASSIGN_OR_RETURN(Statement update, writer_->GetCachedStatement(sql));
      update.BindInt64(0, floor_ms);
      EDGEMOND_RETURN_IF_ERROR(update.Run());
    }
  }
  for (const std::int64_t id : dead_series) {
    EDGEMOND_ASSIGN_OR_RETURN(Statement erase,
                              writer_->GetCachedStatement("DELETE FROM series WHERE id = ?"));
    erase.BindInt64(0, id);
    EDGEMOND_RETURN_IF_ERROR(erase.Run());
  }
  {
    std::lock_guard lock(mu_);
    const Status status = transaction->Commit();
    if (!status.ok()) {
      return status.WithContext("storage: enforcing retention on " + options_.path);
    }
    for (auto& [key, entry] : series_by_key_) {
      SeriesInfo& info = entry.info;
      if (info.last_ms && *info.last_ms < floor_ms) {
        // Nothing left; an extent row still to be written (extent_dirty) would be wrong too.
        info.first_ms.reset();
        info.last_ms.reset();
        entry.extent_dirty = false;
      } else if (info.first_ms && *info.first_ms < floor_ms) {
        info.first_ms = floor_ms;
      }
    }
    for (const std::int64_t id : dead_series) {
      auto it = series_by_id_.find(id);
      const std::string key = it->second->key;
      series_by_id_.erase(it);
      series_by_key_.erase(key);
    }
  }
  result.deleted_series = static_cast<std::int64_t>(dead_series.size());

  // Give space back only when a lot is free (after a backlog, or a shorter retention); in steady
  // state the next flushes reuse the pages a batch freed.
  EDGEMOND_ASSIGN_OR_RETURN(const std::int64_t free_pages,
                            writer_->QueryInt64("PRAGMA freelist_count"));
  if (free_pages > kVacuumThresholdPages) {
    EDGEMOND_RETURN_IF_ERROR(
        writer_->Execute("PRAGMA incremental_vacuum(" + std::to_string(kVacuumPagesPerCall) + ")"));
  }
  EDGEMOND_RETURN_IF_ERROR(CheckpointIfDue());
  return result;
}

Result<std::vector<SeriesInfo>> SqliteStore::ListSeries(
    const std::optional<SeriesSelector>& selector) {
  std::lock_guard lock(mu_);
  std::vector<SeriesInfo> series;
  for (const auto& [key, entry] : series_by_key_) {
    if (!selector || selector->Matches(entry.info.name, entry.info.labels)) {
      series.push_back(entry.info);
    }
  }
  return series;
}

Result<std::vector<const SqliteStore::SeriesEntry*>> SqliteStore::SelectSeries(
    const RangeQuery& query) const {
  std::vector<const SeriesEntry*> selected;
  for (const auto& [key, entry] : series_by_key_) {
    if (!query.selector.Matches(entry.info.name, entry.info.labels)) continue;
    if (selected.size() == query.max_series) {
      return Status::ResourceExhausted("the selector matches more than " +
                                       std::to_string(query.max_series) +
                                       " series; narrow it with label matchers");
    }
    selected.push_back(&entry);
  }
  return selected;
}

Result<QueryResult> SqliteStore::Query(const RangeQuery& query) {
  const std::int64_t from_ms = query.from_ms;
  const std::int64_t to_ms = query.to_ms;
  const std::int64_t step_ms = query.step_ms;
  if (from_ms > to_ms) return Status::InvalidArgument("the query range ends before it starts");
  if (step_ms < 0) return Status::InvalidArgument("the query step is negative");
  if (query.max_points_per_series == 0) {
    return Status::InvalidArgument("max_points_per_series must be positive");
  }
  if (step_ms > 0) {
    const std::int64_t buckets = StepAggregator::BucketCount(from_ms, to_ms, step_ms);
    if (buckets > static_cast<std::int64_t>(query.max_points_per_series)) {
      return Status::InvalidArgument("the range and step give " + std::to_string(buckets) +
                                     " points per series; the limit "
                                     "is " +
                                     std::to_string(query.max_points_per_series) +
                                     " (use a larger step or a shorter range)");
    }
  }

  // Per selected series: its description and its head samples, merged into the stored ones.
  struct Cursor {
    std::int64_t id;
    SeriesInfo info;
    std::vector<HeadSample> head;  // Sorted by time, one per timestamp.
    std::size_t next = 0;          // First head sample not yet fed.
  };
  std::vector<Cursor> cursors;
  std::unordered_map<std::int64_t, std::size_t> index_by_id;

  std::lock_guard read_lock(read_mu_);
  Transaction snapshot(*reader_, Transaction::Mode::kDeferred);
  {
    std::lock_guard lock(mu_);
    EDGEMOND_ASSIGN_OR_RETURN(const auto selected, SelectSeries(query));
    cursors.reserve(selected.size());
    for (const SeriesEntry* entry : selected) {
      index_by_id[entry->id] = cursors.size();
      cursors.push_back(Cursor{entry->id, entry->info, {}, 0});
    }
    for (const HeadSample& sample : head_) {
      if (sample.ts_ms < from_ms || sample.ts_ms > to_ms) continue;
      auto it = index_by_id.find(sample.series_id);
      if (it != index_by_id.end()) cursors[it->second].head.push_back(sample);
    }
    // The read transaction takes its WAL snapshot at its first read: do that while no flush can
    // commit, so the snapshot and the head copy agree (see the header).
    EDGEMOND_RETURN_IF_ERROR(snapshot.Begin());
    EDGEMOND_RETURN_IF_ERROR(reader_->QueryInt64("SELECT count(*) FROM series_extent").status());
  }
  for (Cursor& cursor : cursors) {
    std::stable_sort(cursor.head.begin(), cursor.head.end(),
                     [](const HeadSample& a, const HeadSample& b) { return a.ts_ms < b.ts_ms; });
    // One point per timestamp: the later Append wins, as it does in Flush.
    std::vector<HeadSample> unique;
    for (const HeadSample& sample : cursor.head) {
      if (!unique.empty() && unique.back().ts_ms == sample.ts_ms) {
        unique.back() = sample;
      } else {
        unique.push_back(sample);
      }
    }
    cursor.head = std::move(unique);
  }

  std::vector<StepAggregator> aggregators;
  aggregators.reserve(cursors.size());
  for (std::size_t i = 0; i < cursors.size(); ++i) {
    aggregators.emplace_back(from_ms, to_ms, step_ms, query.aggregation,
                             query.max_points_per_series);
  }
  // Feeds stored sample (ts, value) of cursor i, after the head samples that precede it; a head
  // sample with the same timestamp replaces it.
  const auto feed_stored = [&](std::size_t i, std::int64_t ts_ms, double value) -> Status {
    Cursor& cursor = cursors[i];
    while (cursor.next < cursor.head.size() && cursor.head[cursor.next].ts_ms < ts_ms) {
      const HeadSample& sample = cursor.head[cursor.next++];
      EDGEMOND_RETURN_IF_ERROR(aggregators[i].Add(sample.ts_ms, sample.value));
    }
    if (cursor.next < cursor.head.size() && cursor.head[cursor.next].ts_ms == ts_ms) {
      return Status::Ok();
    }
    return aggregators[i].Add(ts_ms, value);
  };

  if (cursors.size() == 1) {
    EDGEMOND_ASSIGN_OR_RETURN(
        Statement select,
        reader_->GetCachedStatement("SELECT ts, value FROM samples WHERE ts BETWEEN ? AND ? AND "
                                    "series_id = ? ORDER BY ts"));
    select.BindInt64(0, from_ms);
    select.BindInt64(1, to_ms);
    select.BindInt64(2, cursors[0].id);
    while (true) {
      EDGEMOND_ASSIGN_OR_RETURN(const bool has_row, select.Step());
      if (!has_row) break;
      EDGEMOND_RETURN_IF_ERROR(feed_stored(0, select.ColumnInt64(0), select.ColumnDouble(1)));
    }
  } else if (cursors.size() > 1) {
    const bool in_list = cursors.size() <= kMaxInListSeries;
    std::string sql = "SELECT ts, series_id, value FROM samples WHERE ts BETWEEN ? AND ?";
    if (in_list) {
      sql += " AND series_id IN (";
      for (std::size_t i = 0; i < cursors.size(); ++i) sql += i == 0 ? "?" : ", ?";
      sql += ")";
    }
    sql += " ORDER BY ts";
    EDGEMOND_ASSIGN_OR_RETURN(Statement select, reader_->Prepare(sql));
    select.BindInt64(0, from_ms);
    select.BindInt64(1, to_ms);
    if (in_list) {
      for (std::size_t i = 0; i < cursors.size(); ++i) {
        select.BindInt64(static_cast<int>(i) + 2, cursors[i].id);
      }
    }
    while (true) {
      EDGEMOND_ASSIGN_OR_RETURN(const bool has_row, select.Step());
      if (!has_row) break;
      auto it = index_by_id.find(select.ColumnInt64(1));
      if (it == index_by_id.end()) continue;
      EDGEMOND_RETURN_IF_ERROR(
          feed_stored(it->second, select.ColumnInt64(0), select.ColumnDouble(2)));
    }
  }
  // The read transaction only pinned a snapshot; ending it early lets checkpoints proceed.
  EDGEMOND_RETURN_IF_ERROR(snapshot.Rollback());

  QueryResult result;
  result.step_ms = step_ms;
  result.series.reserve(cursors.size());
  for (std::size_t i = 0; i < cursors.size(); ++i) {
    Cursor& cursor = cursors[i];
    for (; cursor.next < cursor.head.size(); ++cursor.next) {
      const HeadSample& sample = cursor.head[cursor.next];
      EDGEMOND_RETURN_IF_ERROR(aggregators[i].Add(sample.ts_ms, sample.value));
    }
    result.series.push_back({std::move(cursor.info), aggregators[i].Finish()});
  }
  return result;
}

StoreStats SqliteStore::Stats() const {
  StoreStats stats;
  {
    std::lock_guard lock(mu_);
    stats.series = series_by_key_.size();
    stats.head_samples = head_.size();
  }
  stats.database_bytes = FileSize(options_.path);
  stats.wal_bytes = FileSize(options_.path + "-wal");
  return stats;
}

}  // namespace edgemond::storage
